// Reference of `per_block_quant_fp8` (ops.md §7.1): w [N, K] -> w_q [N, K] fp8 and w_s block scales,
// one per group_size x group_size tile (amax over the tile; partial edge tiles use the elements
// present, i.e. zero padding). scale_layout row_major / mn_major: F32 [ceil(N/gs), ceil(K/gs)];
// packed_ue8m0: the SM100 form, scales broadcast along N (row n uses tile n/gs) and packed, I32
// [N, ceil(ceil(K/gs)/4)] MN-major.
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs per_block_quant_fp8_reference(const OpCase& c);
OpDescriptor per_block_quant_fp8_descriptor();

}  // namespace dsv4::ops
