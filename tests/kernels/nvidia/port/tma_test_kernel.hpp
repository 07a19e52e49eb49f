// Launcher of the bulk tensor copy's test kernel (tma_test_kernel.kernel.cpp), for test_port_tma.cpp.
#pragma once

#include <cstdint>

#include "kernels/nvidia/port/tensor_map.hpp"

namespace dsv4::test::tmak {
// One block copies the box of `map` at (row, col) (box_rows x 64 elements) into LDS with port::tma_load_2d, waits
// on its transaction barrier, and writes the tile back un-swizzled: out[r * 64 + j] = element j of box row r.
// Run twice from one barrier (two phases): the second copy is the box at (row2, col2).
// misuse (sim only: on a GPU these hang until the wait traps): 1 waits on the wrong parity in the first phase,
// 2 announces 128 bytes more than the copy brings. 3 drops the block barrier between the wait and the reads (still
// correct: the wait orders the copy before them); 4 drops the one between the reads and the next copy (a race).
void load_box(const dsv4::port::TensorMap2d& map, int box_rows, int col, int row, int col2, int row2,
              std::uint16_t* out, std::uint16_t* out2, dsv4::port::Stream& s, int misuse = 0);
// One block copies `panels` panels of a make_tensor_map_panels map at (row, panel0) with port::tma_load_panels and
// writes them back un-swizzled, panel after panel: out[(q * box_rows + r) * 64 + j]. box_rows a multiple of 8.
// wrong_copy: issues port::tma_load_2d on the panel map instead (sim: refused, naming the rule).
void load_panels(const dsv4::port::TensorMap2d& map, int box_rows, int panels, int row, int panel0,
                 std::uint16_t* out, dsv4::port::Stream& s, bool wrong_copy = false);
}  // namespace dsv4::test::tmak
