// Host launcher of sparse_mla_decode: admission (refuse before launch with the plan's reason, null pointers, a
// workspace smaller than the plan's), then the raw launch of the split and combine kernels.
#include <string>

#include "kernels/sparse_mla_decode/smla_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::smla {

std::size_t cache_bytes(const SmlaPlan& plan, bool extra) {
  const SmlaShape& s = plan.shape;
  const CacheShape& c = extra ? s.extra_cache : s.cache;
  if (c.num_blocks == 0) return 0;
  const std::int64_t stride = extra ? plan.extra_block_stride : plan.main_block_stride;
  return static_cast<std::size_t>((c.num_blocks - 1) * stride + c.block_size * s.bytes_per_token());
}

void launch_sparse_mla_decode(const SmlaPlan& plan, const SmlaBuffers& io, void* workspace,
                              std::size_t workspace_bytes, port::Stream& stream) {
  if (!plan.ok) throw InputError("sparse_mla_decode refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.shape.tokens() == 0) return;
  if (workspace_bytes < plan.workspace_bytes || !workspace)
    throw InputError("sparse_mla_decode refused before launch: workspace of " + std::to_string(workspace_bytes) +
                     " B is smaller than get_workspace_size = " + std::to_string(plan.workspace_bytes) + " B [" +
                     plan.describe() + "]");
  const SmlaShape& s = plan.shape;
  const bool extra = s.extra_topk > 0;
  if (!io.q || !io.out || !io.lse || (s.topk > 0 && !io.indices) ||
      (s.topk > 0 && s.cache.num_blocks > 0 && !io.k_cache) || (s.has_topk_length && !io.topk_length) ||
      (s.has_sink && !io.attn_sink) || (extra && (!io.extra_indices || (s.extra_cache.num_blocks > 0 && !io.extra_k_cache))) ||
      (extra && s.has_extra_topk_length && !io.extra_topk_length))
    throw InputError("sparse_mla_decode: null device pointer among q, k_cache, indices, topk_length, attn_sink, "
                     "extra_k_cache, extra_indices, extra_topk_length, out, lse (as the shape requires)");
  launch_smla_kernels(plan, io, workspace, stream);
}

}  // namespace dsv4::kernels::smla
