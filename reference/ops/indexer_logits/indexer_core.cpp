// Lightning-indexer score; see indexer_core.hpp.
#include "reference/ops/indexer_logits/indexer_core.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace dsv4::ops::indexer {

Dot parse_dot(const std::string& s) {
  if (s == "fp32") return Dot::fp32;
  if (s == "bf16") return Dot::bf16;
  throw std::invalid_argument("unknown dot variant '" + s + "' (fp32, bf16)");
}

void score_chunk(const gemm::ConstRef& Qs, std::int64_t H, const gemm::ConstRef& K, const double* sf,
                 std::span<const ChunkQuery> queries, Dot dot, std::vector<double>& work) {
  const std::int64_t n = K.rows();
  if (Qs.rows() != H * static_cast<std::int64_t>(queries.size()))
    throw std::invalid_argument(fmt::format("indexer::score_chunk: {} query rows for {} queries of {} heads", Qs.rows(),
                                            queries.size(), H));
  std::int64_t need = 0;
  for (const ChunkQuery& q : queries) {
    if (q.begin < 0 || q.len < 0 || q.begin + q.len > n)
      throw std::invalid_argument(
          fmt::format("indexer::score_chunk: a query scores keys [{}, {}) of {}", q.begin, q.begin + q.len, n));
    if (q.len > 0) need = std::max(need, q.begin + q.len);
  }
  if (need == 0) return;
  // S = Qs · Kᵀ over the keys some query needs: row r·H + h holds head h's dots along the keys.
  work.resize(static_cast<std::size_t>(Qs.rows() * need + need));
  Eigen::Map<gemm::MatD> S(work.data(), Qs.rows(), need);
  gemm::product_nt(Qs, K.topRows(need), S);
  double* acc = work.data() + Qs.rows() * need;
  for (std::size_t r = 0; r < queries.size(); ++r) {
    const ChunkQuery& q = queries[r];
    if (q.len == 0) continue;
    std::fill(acc, acc + q.len, 0.0);
    const double* kf = sf + q.begin;
    for (std::int64_t h = 0; h < H; ++h) {
      const double* s = S.row(static_cast<Eigen::Index>(r) * H + h).data() + q.begin;
      const double wh = q.w[h];
      if (dot == Dot::bf16) {
        for (std::int64_t j = 0; j < q.len; ++j) {
          const double v = gemm::round_to_bf16(s[j]) * kf[j];
          acc[j] += (v > 0 ? v : 0.0) * wh;
        }
      } else {
#pragma omp simd
        for (std::int64_t j = 0; j < q.len; ++j) {
          const double v = s[j] * kf[j];
          acc[j] += (v > 0 ? v : 0.0) * wh;
        }
      }
    }
    for (std::int64_t j = 0; j < q.len; ++j) q.out[j] = static_cast<float>(acc[j]);
  }
}

}  // namespace dsv4::ops::indexer
