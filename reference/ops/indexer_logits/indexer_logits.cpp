// indexer_logits float64 reference (ops.md §4.1). OpenMP across (key chunk, query group) items.
// Positions outside [ks, ke) are −inf; with clean_logits=false the contract leaves them unwritten,
// and the reference still writes −inf there (the comparator must mask them, see error_model.md).
#include "reference/ops/indexer_logits/indexer_logits.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "reference/ops/common/checks.hpp"
#include "reference/ops/indexer_logits/indexer_core.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "indexer_logits";
}

Outputs indexer_logits_reference(const OpCase& c) {
  const Tensor& q = c.in("q");
  const Tensor& kv = c.in("kv");
  const Tensor& kv_sf = c.in("kv_sf");
  const Tensor& weights = c.in("weights");
  const Tensor& ks = c.in("cu_seq_len_k_start");
  const Tensor& ke = c.in("cu_seq_len_k_end");
  checks::rank(kOp, "q", q, 3, "[S, H, D]");
  checks::rank(kOp, "kv", kv, 2, "[S_kv, D]");
  checks::dtype_in(kOp, "q", q, {DType::F8_E4M3FN, DType::F8_E4M3FNUZ});
  checks::require(kv.dtype() == q.dtype(), kOp, "kv", "must have the same fp8 dtype as q");
  const std::int64_t S = q.size(0), H = q.size(1), D = q.size(2), S_kv = kv.size(0);
  checks::dim_eq(kOp, "kv", kv, 1, D, "D (q.size(2))");
  checks::rank(kOp, "kv_sf", kv_sf, 1, "[S_kv]");
  checks::dim_eq(kOp, "kv_sf", kv_sf, 0, S_kv, "S_kv");
  checks::rank(kOp, "weights", weights, 2, "[S, H]");
  checks::dim_eq(kOp, "weights", weights, 0, S, "S");
  checks::dim_eq(kOp, "weights", weights, 1, H, "H");
  checks::rank(kOp, "cu_seq_len_k_start", ks, 1, "[S]");
  checks::rank(kOp, "cu_seq_len_k_end", ke, 1, "[S]");
  checks::dim_eq(kOp, "cu_seq_len_k_start", ks, 0, S, "S");
  checks::dim_eq(kOp, "cu_seq_len_k_end", ke, 0, S, "S");
  const bool clean = c.attrs.at("clean_logits").get<bool>();
  const std::int64_t max_seqlen_k = c.attrs.at("max_seqlen_k").get<std::int64_t>();
  const indexer::Dot dot = indexer::parse_dot(c.attrs.at("dot").get<std::string>());
  checks::require(max_seqlen_k >= 0, kOp, "max_seqlen_k", "must be >= 0 (0 = full width)");
  checks::require(!(max_seqlen_k > 0 && clean), kOp, "clean_logits",
                  "compressed logits (max_seqlen_k > 0) are incompatible with clean_logits=true");
  const std::vector<double> sf = gemm::to_vector(kv_sf);
  for (std::int64_t j = 0; j < S_kv; ++j)
    checks::require(sf[j] >= 0, kOp, "kv_sf", fmt::format("kv_sf[{}] = {} must be >= 0 (applied after the ReLU)", j, sf[j]));
  std::vector<std::int64_t> lo(S), hi(S);
  for (std::int64_t i = 0; i < S; ++i) {
    lo[i] = static_cast<std::int64_t>(ks.get({i}));
    hi[i] = static_cast<std::int64_t>(ke.get({i}));
    checks::require(0 <= lo[i] && lo[i] <= hi[i] && hi[i] <= S_kv, kOp, "cu_seq_len_k_start",
                    fmt::format("row {}: need 0 <= ks = {} <= ke = {} <= S_kv = {}", i, lo[i], hi[i], S_kv));
    checks::require(max_seqlen_k == 0 || hi[i] - lo[i] <= max_seqlen_k, kOp, "max_seqlen_k",
                    fmt::format("row {}: ke − ks = {} exceeds max_seqlen_k = {}", i, hi[i] - lo[i], max_seqlen_k));
  }
  const gemm::MatD W = gemm::to_matrix(weights);
  std::vector<gemm::MatD> Q(static_cast<std::size_t>(S));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < S; ++i) Q[i] = gemm::to_matrix(q.select(0, i));
  const std::int64_t width = max_seqlen_k > 0 ? max_seqlen_k : S_kv;
  Tensor logits = Tensor::empty(DType::F32, {S, width});
  logits.fill(-std::numeric_limits<double>::infinity());
  // Work items: an aligned chunk of keys and up to kQueriesPerChunk of the queries whose [ks, ke) meets it.
  // Each item decodes its chunk (never the whole kv) and scores it for all its queries in one dgemm.
  struct Item { std::int64_t c0, n, first, count; };  // queries: members[first, first + count)
  std::vector<std::int64_t> members;
  std::vector<Item> items;
  for (std::int64_t c0 = 0; c0 < S_kv; c0 += indexer::kKeyChunk) {
    const std::int64_t n = std::min(indexer::kKeyChunk, S_kv - c0);
    std::int64_t in_item = 0;
    for (std::int64_t i = 0; i < S; ++i) {
      if (lo[i] >= c0 + n || hi[i] <= c0) continue;
      if (in_item == 0) items.push_back({c0, n, static_cast<std::int64_t>(members.size()), 0});
      members.push_back(i);
      ++items.back().count;
      in_item = (in_item + 1) % indexer::kQueriesPerChunk;
    }
  }
#pragma omp parallel
  {
    std::vector<double> work;
    gemm::MatD K(indexer::kKeyChunk, D), Qs(indexer::kQueriesPerChunk * H, D);
    std::vector<indexer::ChunkQuery> cq;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t t = 0; t < items.size(); ++t) {
      const Item& it = items[t];
      gemm::decode_block(kv, it.c0, it.n, 0, D, K.data(), D);
      cq.clear();
      for (std::int64_t r = 0; r < it.count; ++r) {
        const std::int64_t i = members[it.first + r];
        Qs.middleRows(r * H, H) = Q[i];
        const std::int64_t k_begin = std::max(lo[i], it.c0), k_end = std::min(hi[i], it.c0 + it.n);
        const std::int64_t col = max_seqlen_k > 0 ? k_begin - lo[i] : k_begin;  // compressed rows start at ks
        cq.push_back({W.row(i).data(), logits.ptr<float>() + i * width + col, k_begin - it.c0, k_end - k_begin});
      }
      indexer::score_chunk(Qs.topRows(it.count * H), H, K.topRows(it.n), sf.data() + it.c0, cq, dot, work);
    }
  }
  return {{"logits", logits}};
}

}  // namespace dsv4::ops
