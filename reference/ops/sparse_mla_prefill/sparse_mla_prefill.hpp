// Float64 reference of sparse_mla_prefill (ops.md §2, FlashMLA flash_mla_sparse_fwd, current
// semantics): per query token, softmax attention of h_q heads over the kv rows its indices select.
//   - index j of row i is invalid if idx < 0 || idx >= s_kv || j >= topk_length[i]; a duplicate
//     index counts once per occurrence;
//   - lonely rows (no valid index): out 0, lse +inf, max_logits -inf;
//   - attn_sink folds into out only (lse, max_logits are sink-free).
// Attributes (variants): lse_units {ln|log2} and lonely_lse {+inf|-inf} (the 2025 release, known-bugs
// 7); p_rounding {none|bf16} models the kernel's cast of P to bf16 before PV (off by default);
// nan_beyond_topk_length {must_ignore|forbidden}: under `forbidden` a valid index past topk_length
// that points at a kv row holding NaN is a precondition violation (InputError).
// Outputs: out bf16 [s_q, h_q, d_v], max_logits fp32 [s_q, h_q], lse fp32 [s_q, h_q], each rounded once.
#pragma once
#include "reference/registry/op_descriptor.hpp"

namespace dsv4 {

Outputs sparse_mla_prefill_reference(const OpCase& c);

}  // namespace dsv4
