// Host API of the sparse_mla_prefill kernel on device buffers (plan in sparse_prefill_plan.hpp).
#pragma once
#include "kernels/port/runtime.hpp"
#include "kernels/sparse_mla_prefill/sparse_prefill_plan.hpp"

namespace dsv4::kernels::sparse_prefill {

// Device pointers. q: bf16 codes at i*qs + h*qh + d (plan shape strides); kv: bf16 codes at r*kvs + d;
// indices: int32 [s_q, topk] contiguous; attn_sink: fp32 [h_q] or null; topk_length: int32 [s_q] or null
// (values outside [0, topk] are clamped); out: bf16 [s_q, h_q, d_v] contiguous; max_logits, lse: fp32 [s_q, h_q].
struct PrefillBuffers {
  const void* q = nullptr;
  const void* kv = nullptr;
  const int* indices = nullptr;
  const float* attn_sink = nullptr;
  const int* topk_length = nullptr;
  void* out = nullptr;
  float* max_logits = nullptr;
  float* lse = nullptr;
};

struct PrefillArgs {
  float sm_scale = 1.f;
};

// Refuses before launch (kernels::CannotImplement naming the broken limit) when the plan is not admitted, and
// InputError when a required pointer is null; a launch error is a port::Error naming the kernel and the plan.
void launch_sparse_mla_prefill(const PrefillPlan& plan, const PrefillBuffers& io, const PrefillArgs& args,
                               port::Stream& stream);

}  // namespace dsv4::kernels::sparse_prefill
