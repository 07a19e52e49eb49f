// Float64 reference of sparse_mla_decode (ops.md §3, FlashMLA flash_mla_with_kvcache with an FP8
// sparse cache): per query (b, s), softmax attention of h_q heads over the dequantized cache slots its
// indices select, the main and the optional extra cache sharing one softmax (concatenated along topk).
//   - only -1 is invalid; positions >= topk_length[b] (extra_topk_length[b]) are ignored; any other
//     value outside [0, num_slots) is a precondition violation (decode_invalid:minus1_only) -> InputError;
//   - lonely queries: out 0, lse +inf whatever the sink; the sink folds into out only (lse sink-free);
//   - only referenced slots are read, so NaN in unreferenced slots never reaches the result.
// Dequantization (kv_dequant): exact (default, pure float64) | fp32_product | bf16_product (the kernel's
// bf16(fp8) * bf16(scale) in bf16, an intermediate rounding kept as an option); e8m0_decode exact|shift23.
// Outputs: out bf16 [b, s_q, h_q, head_dim_v]; lse fp32 [b, h_q, s_q] returned as the transpose(1, 2)
// view of [b, s_q, h_q] storage (non-contiguous, as FlashMLA).
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4 {

Outputs sparse_mla_decode_reference(const OpCase& c);

}  // namespace dsv4
