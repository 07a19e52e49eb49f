// Host API of the lightning-indexer kernels on device buffers (plans in indexer_plan.hpp).
#pragma once
#include <cstdint>

#include "kernels/indexer_logits/indexer_plan.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::kernels::indexer {

// Non-paged. q: fp8 codes [S, H, D] contiguous; kv: fp8 codes [S_kv, D] contiguous; kv_sf: fp32 [S_kv] (>= 0);
// weights: fp32 [S, H]; ks, ke: int32 [S]; logits: fp32 rows of plan.row_stride elements. Positions outside
// [ks, ke) are written −inf when clean_logits, else left untouched (compressed mode: columns >= ke − ks untouched).
struct IndexerBuffers {
  const std::uint8_t* q = nullptr;
  const std::uint8_t* kv = nullptr;
  const float* kv_sf = nullptr;
  const float* weights = nullptr;
  const std::int32_t* ks = nullptr;
  const std::int32_t* ke = nullptr;
  float* logits = nullptr;
};

// Paged. q: fp8 codes [B, next_n, H, D]; kv_cache: num_blocks blocks of block_kv·D fp8 codes then block_kv fp32
// scales; weights: fp32 [B·next_n, H]; context_lens: int32 [B, next_n]; block_table: int32 [B, max_blocks];
// logits: fp32 rows of plan.row_stride. Only k < context_lens[b, t] is written; the kernel reads no cache slot and
// no block-table entry beyond a row's context.
struct PagedBuffers {
  const std::uint8_t* q = nullptr;
  const std::uint8_t* kv_cache = nullptr;
  const float* weights = nullptr;
  const std::int32_t* context_lens = nullptr;
  const std::int32_t* block_table = nullptr;
  float* logits = nullptr;
};

// Refuse before launch (dsv4::InputError with the plan's reason) when the plan is not admitted or a required
// pointer is null; a launch error is a port::Error naming the kernel and the plan. Asynchronous on `stream`.
void launch_indexer_logits(const IndexerPlan& plan, const IndexerBuffers& io, port::Stream& stream);
void launch_indexer_logits_paged(const PagedPlan& plan, const PagedBuffers& io, port::Stream& stream);

}  // namespace dsv4::kernels::indexer
