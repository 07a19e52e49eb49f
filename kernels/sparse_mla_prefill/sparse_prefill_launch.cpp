// Host launcher of sparse_mla_prefill: admission (refuse before launch with the plan's reason), then the raw launch.
#include "kernels/kernel_registry.hpp"
#include "kernels/sparse_mla_prefill/sparse_prefill_launch_detail.hpp"

namespace dsv4::kernels::sparse_prefill {

void launch_sparse_mla_prefill(const PrefillPlan& plan, const PrefillBuffers& io, const PrefillArgs& args,
                               port::Stream& stream) {
  if (!plan.ok)
    throw CannotImplement("sparse_mla_prefill refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.shape.s_q == 0) return;
  if (!io.q || !io.kv || !io.indices || !io.out || !io.max_logits || !io.lse)
    throw InputError("sparse_mla_prefill: null device pointer among q, kv, indices, out, max_logits, lse");
  launch_sparse_prefill_kernel(plan, io, args, stream);
}

}  // namespace dsv4::kernels::sparse_prefill
