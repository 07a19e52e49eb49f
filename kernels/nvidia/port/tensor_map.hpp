// Tensor maps of the sm_90 bulk tensor copies (kernels/nvidia/port/tma.hpp): host side, any TU. Implemented per
// backend in kernels/nvidia/backend/{cuda,sim}/tensor_map_*.cpp (cuda: cuTensorMapEncodeTiled; sim: the fields its
// copy emulation reads back); not built on hip (AMD has no TMA).
#pragma once

#include <cstdint>

#include "kernels/port/runtime.hpp"

namespace dsv4::port {

// ---- tensor maps ------------------------------------------------------
// A 2-D row-major tensor of 2-byte elements (bf16, fp16) as one bulk tensor copy reads it: `rows` rows of `cols`
// elements, `row_stride_bytes` apart, copied in boxes of `box_rows` rows x 64 elements (one 128-byte swizzled row,
// the layout of kernels/nvidia/port/wgmma.hpp); elements outside rows x cols arrive as zeros. Passed to kernels by value
// inside their parameters. cuda: a CUtensorMap (cuTensorMapEncodeTiled); sim: the fields, read by the emulation.
// Requirements (checked, Error naming the limit): base 16-byte aligned, row stride a multiple of 16
// bytes and >= cols · 2, cols a multiple of 8, 1 <= box_rows <= 256.
struct alignas(64) TensorMap2d {
  unsigned char opaque[128];
};
TensorMap2d make_tensor_map_2d(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                               int box_rows);
inline constexpr int kTensorMapBoxCols = 64;  // elements per box row (128 bytes)
// The same tensor copied `panels` consecutive 64-column panels at a time by one bulk copy (tma_load_panels): the
// panels land one after another, each a box_rows x 64 swizzled tile as tma_load_2d leaves it, so one instruction
// brings a whole ring stage (the copies' issue rate limits a producer issuing one per panel). cuda: a
// 3-D map (64 elements, rows, cols / 64); panels past the last one arrive as zeros like rows past the end.
// Requirements beyond make_tensor_map_2d's: cols a multiple of 64 (a panel never crosses a row's end),
// 1 <= panels <= 8. A panel map works only with tma_load_panels and a 2-D map only with tma_load_2d (sim checks).
TensorMap2d make_tensor_map_panels(const void* base, std::int64_t rows, std::int64_t cols,
                                   std::int64_t row_stride_bytes, int box_rows, int panels);

}  // namespace dsv4::port
