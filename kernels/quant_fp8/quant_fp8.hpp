// Host API of the per-token-group FP8 quantization kernel on device buffers (plan in quant_plan.hpp).
#pragma once
#include "kernels/port/runtime.hpp"
#include "kernels/quant_fp8/quant_plan.hpp"

namespace dsv4::kernels::quant {

// Device pointers. x: [M, K] contiguous (raw bf16/fp16/fp32); x_q: [M, K] fp8 codes; scales: plan.scale_bytes
// bytes laid out per plan.options.layout (row_major F32 [M, G]; mn_major F32 [G, align(M,4)]; packed_ue8m0 I32
// [ceil(G/4), align(M,4)]), padding rows written 0.
struct QuantBuffers {
  const void* x = nullptr;
  void* x_q = nullptr;
  void* scales = nullptr;
};

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a pointer is
// null; a launch error is a port::Error naming the kernel and the plan.
void launch_per_token_group_quant_fp8(const QuantPlan& plan, const QuantBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::quant
