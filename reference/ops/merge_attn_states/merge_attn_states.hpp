// Float64 reference of merge_attn_states (ops.md §1): merges two partial attention results over
// disjoint key sets by their log-sum-exps. For token t < prefill_tokens_with_context (default T):
//   p, s = prefix_lse[h,t], suffix_lse[h,t], +inf mapped to -inf (pos_inf_lse = "empty", FA2's empty marker)
//   NaN in p or s: output NaN, output_lse NaN
//   both -inf: both_empty = "zeros" -> output 0 (Triton, always on ROCm) | "copy_prefix" -> prefix_output
//              (the C++ kernel); output_lse = -inf either way
//   else m = max(p,s); output = P e^(p-m)/d + S e^(s-m)/d, d = e^(p-m) + e^(s-m); output_lse = ln d + m
// For t >= prefill_tokens_with_context: output = suffix_output, output_lse = suffix_lse (raw copy).
// pos_inf_lse = "raw" disables the +inf mapping (a kernel unaware of FA2's marker: +inf gives NaN).
// output_scale selects FP8 output: val / scale, clamped to +-max of output_fp8_format, then RNE.
// Output layout: [T, H, D] with the prefix's head stride (padded heads allowed); output_lse [H, T].
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4 {

Outputs merge_attn_states_reference(const OpCase& c);

}  // namespace dsv4
