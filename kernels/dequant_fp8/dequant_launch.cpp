// Host launcher of the FP8 dequantization kernel: admission (refuse before launch with the plan's reason), then
// the raw launch in the kernel TU.
#include "kernels/dequant_fp8/dequant_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::dequant {

void launch_dequant_fp8(const DequantPlan& plan, const DequantBuffers& io, port::Stream& stream) {
  if (!plan.ok) throw InputError("dequant_fp8 refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.elements == 0) return;
  if (!io.x_q || !io.scales || !io.y) throw InputError("dequant_fp8: null device pointer among x_q, scales, y");
  launch_dequant_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::dequant
