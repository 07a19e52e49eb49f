// Host launcher of merge_attn_states: admission (refuse before launch with the plan's reason), then the raw launch.
#include "kernels/merge_attn_states/merge_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::merge {

void launch_merge_attn_states(const MergePlan& plan, const MergeBuffers& io, port::Stream& stream) {
  if (!plan.ok) throw InputError("merge_attn_states refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.threads == 0) return;
  if (!io.prefix || !io.suffix || !io.prefix_lse || !io.suffix_lse || !io.output ||
      (plan.options.output_lse && !io.output_lse))
    throw InputError("merge_attn_states: null device pointer among prefix, suffix, lses, output, output_lse");
  launch_merge_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::merge
