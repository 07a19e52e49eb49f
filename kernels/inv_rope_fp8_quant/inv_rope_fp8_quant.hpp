// Host API of the fused inverse RoPE + FP8 quantization kernel on device buffers (plan in inv_rope_plan.hpp).
#pragma once
#include "kernels/inv_rope_fp8_quant/inv_rope_plan.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::inv_rope {

// Device pointers. o: [T, H, hd] bf16 contiguous; positions: [T] int64 (or int32 per plan.shape.positions_i32);
// cos_sin: [max_pos, rope_dim] fp32 [cos ‖ sin]; o_fp8: [G, T, D] codes; scales: plan.scale_bytes bytes.
struct InvRopeBuffers {
  const void* o = nullptr;
  const void* positions = nullptr;
  const float* cos_sin = nullptr;
  void* o_fp8 = nullptr;
  void* scales = nullptr;
};

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a pointer is
// null. A position outside [0, max_pos) is never read through: that token's rotated dims become NaN (callers
// check positions on the host; the runner refuses them before launch).
void launch_inv_rope_fp8_quant(const InvRopePlan& plan, const InvRopeBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::inv_rope
