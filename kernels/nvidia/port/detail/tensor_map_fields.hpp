// The checks every backend's make_tensor_map_2d runs (kernels/nvidia/port/tensor_map.cpp), and what the sim backend keeps
// in a TensorMap2d's bytes: the fields its bulk-copy emulation (kernels/nvidia/port/tma.hpp) reads back.
#pragma once

#include <cstdint>

#include "kernels/nvidia/port/tensor_map.hpp"

namespace dsv4::port::detail {

struct TensorMapFields {
  const void* base;
  std::int64_t rows, cols, row_stride_bytes;
  int box_rows;
  int panels;  // 0: a 2-D map (tma_load_2d); else panels per copy of a panel map (tma_load_panels)
};
static_assert(sizeof(TensorMapFields) <= sizeof(TensorMap2d), "the fields must fit a TensorMap2d");

// Throws Error naming the broken requirement of make_tensor_map_2d (see kernels/nvidia/port/tensor_map.hpp).
void check_tensor_map_2d(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                         int box_rows);
// The same for make_tensor_map_panels.
void check_tensor_map_panels(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                             int box_rows, int panels);

}  // namespace dsv4::port::detail
