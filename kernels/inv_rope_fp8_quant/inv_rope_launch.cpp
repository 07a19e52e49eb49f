// Host launcher of the fused inverse RoPE + FP8 quantization kernel: admission (refuse before launch with the
// plan's reason), then the raw launch in the kernel TU.
#include "kernels/inv_rope_fp8_quant/inv_rope_launch_detail.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::kernels::inv_rope {

void launch_inv_rope_fp8_quant(const InvRopePlan& plan, const InvRopeBuffers& io, port::Stream& stream) {
  if (!plan.ok)
    throw InputError("inv_rope_fp8_quant refused before launch: " + plan.reason + " [" + plan.describe() + "]");
  if (plan.items == 0 && plan.scale_bytes == 0) return;
  if (!io.o || !io.positions || !io.cos_sin || !io.o_fp8 || !io.scales)
    throw InputError("inv_rope_fp8_quant: null device pointer among o, positions, cos_sin_cache, o_fp8, o_scale");
  launch_inv_rope_kernel(plan, io, stream);
}

}  // namespace dsv4::kernels::inv_rope
