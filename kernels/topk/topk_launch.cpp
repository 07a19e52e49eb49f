// Host launcher of the indexer top-k kernel: admission (refuse before launch with the plan's reason), then the raw
// launch in the kernel TU.
#include "kernels/topk/topk_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::topk {

void launch_topk(const TopkPlan& plan, const TopkBuffers& io, port::Stream& stream) {
  if (!plan.ok) throw InputError("topk refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.shape.rows == 0) return;
  if (!io.logits || !io.row_starts || !io.row_ends || !io.out)
    throw InputError("topk: null device pointer among logits, row_starts, row_ends, topk_indices");
  launch_topk_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::topk
