// The built-in ops, registered explicitly in this order when the registry is first used.
// A new op adds one register_<op> declaration and call here (and its reference/ops/<op>/ folder).
#include "reference/registry/registry.hpp"

namespace dsv4 {
void register_merge_attn_states(Registry& r);
void register_sparse_mla_prefill(Registry& r);
void register_sparse_mla_decode(Registry& r);
void register_kv_cache_write(Registry& r);
void register_indexer_logits(Registry& r);
void register_indexer_logits_paged(Registry& r);
void register_topk(Registry& r);
void register_skinny_gemm(Registry& r);
void register_fp8_gemm_blockscaled(Registry& r);
void register_fp8_einsum(Registry& r);
void register_per_token_group_quant_fp8(Registry& r);
void register_per_block_quant_fp8(Registry& r);
void register_inv_rope_fp8_quant(Registry& r);

void register_builtin_ops(Registry& r) {
  register_merge_attn_states(r);
  register_sparse_mla_prefill(r);
  register_sparse_mla_decode(r);
  register_kv_cache_write(r);
  register_indexer_logits(r);
  register_indexer_logits_paged(r);
  register_topk(r);
  register_skinny_gemm(r);
  register_fp8_gemm_blockscaled(r);
  register_fp8_einsum(r);
  register_per_token_group_quant_fp8(r);
  register_per_block_quant_fp8(r);
  register_inv_rope_fp8_quant(r);
}

}  // namespace dsv4
