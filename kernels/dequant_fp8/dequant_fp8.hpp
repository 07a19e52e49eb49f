// Host API of the FP8 dequantization kernel on device buffers (plan in dequant_plan.hpp).
#pragma once
#include "kernels/dequant_fp8/dequant_plan.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::dequant {

// Device pointers. x_q: [M, K] fp8 codes; scales: plan.scale_bytes bytes per the plan's scale type / layout;
// y: [M, K] bf16 or fp32.
struct DequantBuffers {
  const void* x_q = nullptr;
  const void* scales = nullptr;
  void* y = nullptr;
};

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a pointer is
// null; a launch error is a port::Error naming the kernel and the plan.
void launch_dequant_fp8(const DequantPlan& plan, const DequantBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::dequant
