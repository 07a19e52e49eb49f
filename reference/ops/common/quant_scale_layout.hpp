// Block-scale tensors in the three layouts of ops.md §7.1 / formats.md §7, for writers (quant ops)
// and readers (block-scaled GEMMs):
//   row_major    F32 [rows, groups], contiguous;
//   mn_major     F32 [rows, groups] view with stride(-2)=1, stride(-1)=align(rows,4); padding rows 0;
//   packed_ue8m0 I32 [rows, ceil(groups/4)] MN-major (same align(rows,4) rule); byte j (little-endian)
//                of word p is the UE8M0 exponent of group 4p+j; bytes past the last group are 0.
// Readers also accept F8_E8M0 tensors [rows, groups] (typed UE8M0 scales, decoded exactly).
#pragma once
#include <cstdint>
#include <string>

#include "reference/tensor/tensor.hpp"

namespace dsv4::quant {

enum class ScaleLayout { row_major, mn_major, packed_ue8m0 };

ScaleLayout parse_scale_layout(const std::string& s);  // throws std::invalid_argument
std::int64_t align4(std::int64_t n);

// A zero-filled scale tensor for `rows` x `groups` block scales in the layout.
Tensor make_scale_tensor(ScaleLayout layout, std::int64_t rows, std::int64_t groups);

// Stores the scale of (row, group). packed_ue8m0 requires an exact power of two.
void store_scale(Tensor& sf, ScaleLayout layout, std::int64_t row, std::int64_t group, double scale);

// Number of groups a scale tensor holds along its last dimension (4 per packed word).
std::int64_t scale_groups(const Tensor& sf);

// Decoded scale of (row, group) from an F32, F8_E8M0 or packed-UE8M0 I32 tensor (any strides).
double scale_at(const Tensor& sf, std::int64_t row, std::int64_t group);

}  // namespace dsv4::quant
