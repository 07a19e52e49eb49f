// Host API of the per-block (group_size x group_size) FP8 weight quantization kernel on device buffers (plan in
// per_block_plan.hpp).
#pragma once
#include "kernels/per_block_quant_fp8/per_block_plan.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::block_quant {

// Device pointers. w: [N, K] contiguous (raw bf16/fp16/fp32); w_q: [N, K] fp8 codes; scales: plan.scale_bytes
// bytes: row_major F32 [NB, KB]; mn_major F32 [KB, align(NB,4)]; packed_ue8m0 I32 [ceil(KB/4), align(N,4)];
// padding rows written 0.
struct BlockQuantBuffers {
  const void* w = nullptr;
  void* w_q = nullptr;
  void* scales = nullptr;
};

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a pointer is
// null; a launch error is a port::Error naming the kernel and the plan.
void launch_per_block_quant_fp8(const BlockQuantPlan& plan, const BlockQuantBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::block_quant
