// Host API of the sparse MLA decode kernel on device buffers (plan in smla_plan.hpp).
#pragma once
#include "kernels/port/runtime.hpp"
#include "kernels/sparse_mla_decode/smla_plan.hpp"

namespace dsv4::kernels::smla {

// Device pointers, all contiguous. q: bf16 codes [b, s_q, h_q, d_qk]; caches: raw bytes (block i at i·block_stride,
// last block needs only block_size·bytes_per_token bytes); indices: int32 [b, s_q, topk] (extra: [b, s_q,
// extra_topk]); lengths: int32 [b] or null when the shape says absent; sink: fp32 [h_q] or null;
// out: bf16 codes [b, s_q, h_q, 512]; lse: fp32 [b, s_q, h_q] storage (the op's lse is its transpose(1, 2) view).
struct SmlaBuffers {
  const std::uint16_t* q = nullptr;
  const std::uint8_t* k_cache = nullptr;
  const std::int32_t* indices = nullptr;
  const std::int32_t* topk_length = nullptr;
  const float* attn_sink = nullptr;
  const std::uint8_t* extra_k_cache = nullptr;
  const std::int32_t* extra_indices = nullptr;
  const std::int32_t* extra_topk_length = nullptr;
  std::uint16_t* out = nullptr;
  float* lse = nullptr;
};

// Bytes a cache of this shape occupies on the device ((nb - 1)·stride + block_size·bytes_per_token).
std::size_t cache_bytes(const SmlaPlan& plan, bool extra);

// Refuses before launch (dsv4::InputError naming the limit) when the plan is not admitted, a required pointer is null
// or the workspace is smaller than plan.workspace_bytes; then launches the split kernel and the combine kernel.
void launch_sparse_mla_decode(const SmlaPlan& plan, const SmlaBuffers& io, void* workspace,
                              std::size_t workspace_bytes, port::Stream& stream);

}  // namespace dsv4::kernels::smla
