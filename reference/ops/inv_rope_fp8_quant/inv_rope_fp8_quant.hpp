// Reference of `inv_rope_fp8_quant` (vLLM fused_inv_rope_fp8_quant, ops.md §7.2): per token t and head
// h, the last rope_dim dims of o[t,h,:] get the inverse RoPE at positions[t] (pairing variant, default
// interleaved GPT-J, ops.md §7.3), in float64; the rotated values are rounded to fp32 (the kernel's
// intermediate and the recipes' input type) and quantized per group_size group with scale_recipe.
// Outputs: o_fp8 logical [T, G, D] (D = (H/G)·512) stored as [G, T, D] (view strides (D, T·D, 1));
// o_scale [G, align(T,4), D/128] F32 MN-major (mn_major; padding rows 0) or [G, align(T,4), D/512] I32,
// one word of 4 UE8M0 bytes per head (packed_ue8m0).
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

Outputs inv_rope_fp8_quant_reference(const OpCase& c);
OpDescriptor inv_rope_fp8_quant_descriptor();

}  // namespace dsv4::ops
