// Host launcher of the per-block FP8 quantization kernel: admission (refuse before launch with the plan's reason),
// then the raw launch in the kernel TU.
#include "kernels/per_block_quant_fp8/per_block_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::block_quant {

void launch_per_block_quant_fp8(const BlockQuantPlan& plan, const BlockQuantBuffers& io, port::Stream& stream) {
  if (!plan.ok)
    throw InputError("per_block_quant_fp8 refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.items == 0) return;
  if (!io.w || !io.w_q || !io.scales)
    throw InputError("per_block_quant_fp8: null device pointer among w, w_q, scales");
  launch_block_quant_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::block_quant
