// The lightning-indexer score shared by `indexer_logits` and `indexer_logits_paged` (ops.md §4):
//   logit[j] = Σ_h relu(dot(q_h, k_j)·sf_j)·w_h,
// in float64 on dequantized values. Variant dot:bf16 (vLLM's torch reference) rounds each q·k dot to
// bf16 before the scale; dot:fp32 (DeepGEMM, default) keeps it exact. sf_j ≥ 0 is a precondition
// (the kernels apply sf after the ReLU, which only commutes for sf ≥ 0).
// Work comes in chunks of keys (kKeyChunk): one dgemm scores a chunk against every head of several
// queries at once (the queries whose key ranges meet the chunk; paged decode's next_n), the head sum
// then runs along the keys (vectorisable; the sum over h stays in head order for every key).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/ops/common/blas_gemm.hpp"

namespace dsv4::ops::indexer {

enum class Dot { fp32, bf16 };
Dot parse_dot(const std::string& s);  // "fp32" | "bf16"

inline constexpr std::int64_t kKeyChunk = 512;
inline constexpr std::int64_t kQueriesPerChunk = 4;  // stacked heads per dgemm: 4·H rows (L2-sized S)

// One query's share of a chunk: its head weights (H), where its logits go, and the run of the chunk's
// keys it scores, [begin, begin + len) with 0 <= begin, begin + len <= the chunk's keys.
struct ChunkQuery {
  const double* w;
  float* out;  // the logit of key `begin`
  std::int64_t begin, len;
};

// Scores queries against one chunk of keys K (n × D; the ops pass kKeyChunk keys) with scales sf[0..n):
// Qs stacks the queries' heads (query r's head h at row r·H + h, D columns); queries.size() = Qs.rows() / H.
// out[j - begin] = float(logit[j]) for j in [begin, begin + len). `work` is scratch reused between calls.
void score_chunk(const gemm::ConstRef& Qs, std::int64_t H, const gemm::ConstRef& K, const double* sf,
                 std::span<const ChunkQuery> queries, Dot dot, std::vector<double>& work);

}  // namespace dsv4::ops::indexer
