// indexer_logits_paged float64 reference (ops.md §4.2): row (b, j) of the logits scores the first
// context_lens[b, j] tokens of batch b's pages against q[b, j] with weights[b·next_n + j]; the rest
// of the row is −inf (the contract leaves it to consumers to mask). OpenMP across (batch, key chunk) items.
#include "reference/ops/indexer_logits_paged/indexer_logits_paged.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "reference/ops/common/checks.hpp"
#include "reference/ops/indexer_logits/indexer_core.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "indexer_logits_paged";
}

void paged_kv_write(Tensor& kv_cache, std::int64_t block, std::int64_t slot, const std::uint8_t* codes, float scale) {
  const std::int64_t block_kv = kv_cache.size(1), D = kv_cache.size(3) - 4;
  std::byte* base = kv_cache.data() + block * block_kv * (D + 4);
  std::memcpy(base + slot * D, codes, static_cast<std::size_t>(D));
  std::memcpy(base + block_kv * D + slot * 4, &scale, 4);
}

Outputs indexer_logits_paged_reference(const OpCase& c) {
  const Tensor& q = c.in("q");
  const Tensor& cache = c.in("kv_cache");
  const Tensor& weights = c.in("weights");
  const Tensor& ctx = c.in("context_lens");
  const Tensor& bt = c.in("block_table");
  checks::rank(kOp, "q", q, 4, "[B, next_n, H, D]");
  checks::dtype_in(kOp, "q", q, {DType::F8_E4M3FN, DType::F8_E4M3FNUZ});
  const std::int64_t B = q.size(0), next_n = q.size(1), H = q.size(2), D = q.size(3);
  checks::rank(kOp, "kv_cache", cache, 4, "[num_blocks, block_kv, 1, D+4]");
  checks::dim_eq(kOp, "kv_cache", cache, 2, 1, "1");
  checks::dim_eq(kOp, "kv_cache", cache, 3, D + 4, "D+4");
  checks::require(cache.is_contiguous(), kOp, "kv_cache", "must be contiguous (per-block byte layout)");
  const std::int64_t num_blocks = cache.size(0), block_kv = cache.size(1);
  checks::require(block_kv > 0, kOp, "kv_cache", "block_kv must be > 0");
  checks::rank(kOp, "weights", weights, 2, "[B·next_n, H]");
  checks::dim_eq(kOp, "weights", weights, 0, B * next_n, "B·next_n");
  checks::dim_eq(kOp, "weights", weights, 1, H, "H");
  checks::rank(kOp, "context_lens", ctx, 2, "[B, next_n] (only 2-D is supported)");
  checks::dim_eq(kOp, "context_lens", ctx, 0, B, "B");
  checks::dim_eq(kOp, "context_lens", ctx, 1, next_n, "next_n");
  checks::rank(kOp, "block_table", bt, 2, "[B, max_blocks]");
  checks::dim_eq(kOp, "block_table", bt, 0, B, "B");
  checks::require(!c.attrs.at("clean_logits").get<bool>(), kOp, "clean_logits", "must be false for the paged kernel");
  checks::require(c.attrs.at("max_context_len").is_number_integer(), kOp, "max_context_len", "must be an integer");
  const std::int64_t max_ctx = c.attrs.at("max_context_len").get<std::int64_t>();
  checks::require(max_ctx >= 0, kOp, "max_context_len", "must be >= 0");
  const indexer::Dot dot = indexer::parse_dot(c.attrs.at("dot").get<std::string>());
  const std::int64_t max_blocks = bt.size(1);

  // Check every row's length, every referenced block id and key scale before anything is computed.
  std::vector<std::int64_t> lens(B * next_n), need(B, 0);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t j = 0; j < next_n; ++j) {
      const auto L = static_cast<std::int64_t>(ctx.get({b, j}));
      checks::require(0 <= L && L <= max_ctx, kOp, "context_lens",
                      fmt::format("[{}, {}] = {} must lie in [0, max_context_len = {}]", b, j, L, max_ctx));
      checks::require(L <= max_blocks * block_kv, kOp, "context_lens",
                      fmt::format("[{}, {}] = {} needs more than max_blocks·block_kv = {} slots", b, j, L, max_blocks * block_kv));
      lens[b * next_n + j] = L;
      need[b] = std::max(need[b], L);
    }
  }
  std::vector<std::vector<double>> scales(B);
  std::vector<std::int64_t> block_of(B * max_blocks, -1);
  for (std::int64_t b = 0; b < B; ++b) {
    scales[b].resize(need[b]);
    for (std::int64_t t = 0; t < need[b]; ++t) {
      if (t % block_kv == 0) {
        const auto blk = static_cast<std::int64_t>(bt.get({b, t / block_kv}));
        checks::require(0 <= blk && blk < num_blocks, kOp, "block_table",
                        fmt::format("[{}, {}] = {} is not a block id in [0, {})", b, t / block_kv, blk, num_blocks));
        block_of[b * max_blocks + t / block_kv] = blk;
      }
      const std::byte* base = cache.data() + block_of[b * max_blocks + t / block_kv] * block_kv * (D + 4);
      float s;
      std::memcpy(&s, base + block_kv * D + (t % block_kv) * 4, 4);
      checks::require(s >= 0, kOp, "kv_cache", fmt::format("scale of batch {} token {} = {} must be >= 0", b, t, s));
      scales[b][t] = s;
    }
  }
  // A batch's keys are read through its block table chunk by chunk, decoded exactly into a per-thread
  // buffer (a block's codes are one [block_kv, D] run of q's fp8 format), never gathered whole.
  const Tensor codes = cache.view_as(q.dtype());
  auto decode_keys = [&](std::int64_t b, std::int64_t k0, std::int64_t n, double* dst) {
    for (std::int64_t t = k0; t < k0 + n;) {
      const std::int64_t slot = t % block_kv, run = std::min(block_kv - slot, k0 + n - t);
      const std::int64_t blk = block_of[b * max_blocks + t / block_kv];
      const Tensor rows = codes.as_strided({run, D}, {D, 1}, codes.offset() + blk * block_kv * (D + 4) + slot * D);
      gemm::decode_block(rows, 0, run, 0, D, dst + (t - k0) * D, D);
      t += run;
    }
  };
  const gemm::MatD W = gemm::to_matrix(weights);
  // A batch's next_n queries share its keys: their heads stacked, one dgemm per key chunk scores them all.
  std::vector<gemm::MatD> Qs(B, gemm::MatD(next_n * H, D));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t j = 0; j < next_n; ++j) Qs[b].middleRows(j * H, H) = gemm::to_matrix(q.select(0, b).select(0, j));
  Tensor logits = Tensor::empty(DType::F32, {B * next_n, max_ctx});
  logits.fill(-std::numeric_limits<double>::infinity());
  std::vector<std::array<std::int64_t, 2>> items;  // (batch, first key of the chunk)
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t k0 = 0; k0 < need[b]; k0 += indexer::kKeyChunk) items.push_back({b, k0});
#pragma omp parallel
  {
    std::vector<double> work;
    gemm::MatD K(indexer::kKeyChunk, D);
    std::vector<indexer::ChunkQuery> cq(static_cast<std::size_t>(next_n));
#pragma omp for schedule(dynamic, 1)
    for (std::size_t t = 0; t < items.size(); ++t) {
      const auto [b, k0] = items[t];
      const std::int64_t n = std::min(indexer::kKeyChunk, need[b] - k0);
      for (std::int64_t j = 0; j < next_n; ++j) {
        const std::int64_t r = b * next_n + j;
        cq[j] = {W.row(r).data(), logits.ptr<float>() + r * max_ctx + k0, 0, std::clamp<std::int64_t>(lens[r] - k0, 0, n)};
      }
      decode_keys(b, k0, n, K.data());
      indexer::score_chunk(Qs[b], H, K.topRows(n), scales[b].data() + k0, cq, dot, work);
    }
  }
  return {{"logits", logits}};
}

}  // namespace dsv4::ops
