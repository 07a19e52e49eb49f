// Host launchers of the indexer kernels: admission (refuse before launch with the plan's reason), then the raw launch.
#include "kernels/indexer_logits/indexer_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::indexer {

void launch_indexer_logits(const IndexerPlan& plan, const IndexerBuffers& io, port::Stream& stream) {
  if (!plan.ok) throw InputError("indexer_logits refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.rows == 0 || plan.width == 0) return;
  if (!io.q || !io.weights || !io.ks || !io.ke || !io.logits || (plan.shape.s_kv > 0 && (!io.kv || !io.kv_sf)))
    throw InputError("indexer_logits: null device pointer among q, kv, kv_sf, weights, ks, ke, logits");
  launch_indexer_kernel(plan, io, stream);
}

void launch_indexer_logits_paged(const PagedPlan& plan, const PagedBuffers& io, port::Stream& stream) {
  if (!plan.ok)
    throw InputError("indexer_logits_paged refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.rows == 0 || plan.width == 0) return;
  if (!io.q || !io.kv_cache || !io.weights || !io.context_lens || !io.block_table || !io.logits)
    throw InputError("indexer_logits_paged: null device pointer among q, kv_cache, weights, context_lens, block_table, "
                     "logits");
  launch_paged_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::indexer
