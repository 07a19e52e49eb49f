// Reference of `per_token_group_quant_fp8` (ops.md §7.1): x [M, K] -> x_q [M, K] fp8 and x_s block
// scales for 1 x group_size groups, under a named scale_recipe (formats.md §5, fp32 arithmetic as the
// source kernels) and scale_layout (row_major F32 [M, G]; mn_major F32 view with stride(-2)=1,
// stride(-1)=align(M,4), padding rows 0; packed_ue8m0 I32 [M, ceil(G/4)] MN-major, byte j of word p =
// group 4p+j, unused bytes 0). A partial last group uses only the elements present.
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs per_token_group_quant_fp8_reference(const OpCase& c);
OpDescriptor per_token_group_quant_fp8_descriptor();

}  // namespace dsv4::ops
