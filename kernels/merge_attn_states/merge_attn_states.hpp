// Host API of the merge_attn_states kernel on device buffers (plan in merge_plan.hpp).
#pragma once
#include "kernels/merge_attn_states/merge_plan.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::merge {

// Device pointers. prefix/suffix: [T, H, D] raw elements at t*H*hs + h*hs + d (hs = shape.hs()); lses: fp32 at
// h*stride_h + t*stride_t (buffers must cover every such index); output: same addressing, input dtype or fp8 codes;
// output_lse: fp32 [H, T] contiguous, or null when options.output_lse is false.
struct MergeBuffers {
  const void* prefix = nullptr;
  const float* prefix_lse = nullptr;
  const void* suffix = nullptr;
  const float* suffix_lse = nullptr;
  void* output = nullptr;
  float* output_lse = nullptr;
};

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a required
// pointer is null; a launch error is a port::Error naming the kernel and the plan.
void launch_merge_attn_states(const MergePlan& plan, const MergeBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::merge
