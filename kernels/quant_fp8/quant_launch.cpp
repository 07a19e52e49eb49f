// Host launcher of the per-token-group FP8 quantization kernel: admission (refuse before launch with the plan's
// reason), then the raw launch in the kernel TU.
#include "kernels/quant_fp8/quant_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::quant {

void launch_per_token_group_quant_fp8(const QuantPlan& plan, const QuantBuffers& io, port::Stream& stream) {
  if (!plan.ok)
    throw InputError("per_token_group_quant_fp8 refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.items == 0) return;
  if (!io.x || !io.x_q || !io.scales)
    throw InputError("per_token_group_quant_fp8: null device pointer among x, x_q, scales");
  launch_quant_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::quant
