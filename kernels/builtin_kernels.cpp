// The kernels of this build, registered explicitly when the kernel registry is first used, and the skinny GEMM's
// arch paths (kernels/skinny_gemm/skinny_arch_layout.hpp), registered when its plan first looks one up.
// A new kernel adds one register_<op>_kernel declaration and call here.
#include "kernels/kernel_registry.hpp"

namespace dsv4::kernels {

void register_merge_attn_states_kernel(KernelRegistry& r);
void register_per_token_group_quant_fp8_kernel(KernelRegistry& r);
void register_per_block_quant_fp8_kernel(KernelRegistry& r);
void register_inv_rope_fp8_quant_kernel(KernelRegistry& r);

void register_skinny_gemm_kernel(KernelRegistry& r);
void register_sparse_mla_decode_kernel(KernelRegistry& r);
void register_fp8_gemm_blockscaled_kernel(KernelRegistry& r);
void register_fp8_einsum_kernel(KernelRegistry& r);
void register_indexer_logits_kernel(KernelRegistry& r);
void register_indexer_logits_paged_kernel(KernelRegistry& r);
void register_sparse_mla_prefill_kernel(KernelRegistry& r);
void register_kv_cache_write_kernel(KernelRegistry& r);
void register_topk_kernel(KernelRegistry& r);
void register_dequant_fp8_kernel(KernelRegistry& r);  // a plan sweep only: no registry op

void register_builtin_kernels(KernelRegistry& r) {
  register_merge_attn_states_kernel(r);
  register_per_token_group_quant_fp8_kernel(r);
  register_per_block_quant_fp8_kernel(r);
  register_inv_rope_fp8_quant_kernel(r);
  register_skinny_gemm_kernel(r);
  register_sparse_mla_decode_kernel(r);
  register_fp8_gemm_blockscaled_kernel(r);
  register_fp8_einsum_kernel(r);
  register_indexer_logits_kernel(r);
  register_indexer_logits_paged_kernel(r);
  register_sparse_mla_prefill_kernel(r);
  register_kv_cache_write_kernel(r);
  register_topk_kernel(r);
  register_dequant_fp8_kernel(r);
}

namespace skinny {

#if !defined(DSV4_BACKEND_HIP)
void register_sm90_arch_path();  // kernels/nvidia/skinny_gemm/sm90_plan.cpp
#endif

// The builds with the sm_90 kernels (cuda, and sim, which emulates them under the sm_90 profile) register their path;
// the hip build has none, and its sm_90 plans are refused ("no skinny_gemm kernel for sm_90").
void register_builtin_arch_paths() {
#if !defined(DSV4_BACKEND_HIP)
  register_sm90_arch_path();
#endif
}

}  // namespace skinny

}  // namespace dsv4::kernels
