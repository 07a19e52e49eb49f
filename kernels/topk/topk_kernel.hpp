// Host API of the indexer top-k kernel on device buffers (plan in topk_plan.hpp).
#pragma once
#include "kernels/port/runtime.hpp"
#include "kernels/topk/topk_plan.hpp"

namespace dsv4::kernels::topk {

// Device pointers. logits: fp32 [R, ld]; row_starts / row_ends: int32 [R] (clamped to [0, C], end >= start);
// out: int32 [R, topk], every slot written.
struct TopkBuffers {
  const float* logits = nullptr;
  const int* row_starts = nullptr;
  const int* row_ends = nullptr;
  int* out = nullptr;
};

// Refuses before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a pointer is
// null; a launch error is a port::Error naming the kernel and the plan.
void launch_topk(const TopkPlan& plan, const TopkBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::topk
