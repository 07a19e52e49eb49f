// Test helpers of the indexer kernel tests: building cases by hand (ragged ranges, paged caches with shuffled
// block tables, NaN poison in every unreferenced slot, garbage block-table tails), running the kernel straight
// through the kernel registry into outputs pre-filled with a sentinel bit pattern, and an element-wise check of
// every output position against a float64 recomputation and the op's error model (error_model.md), through the
// bound the ops register as their error_bound (reference/ops/indexer_logits/indexer_bound.hpp),
// with exact −inf where clean_logits asks for it and the sentinel (untouched) wherever the kernel must not write.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "reference/formats/format.hpp"
#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/common/quant_fp8_encode.hpp"
#include "reference/ops/indexer_logits/indexer_bound.hpp"
#include "reference/ops/indexer_logits_paged/indexer_logits_paged.hpp"
#include "tests/kernels/kernel_case.hpp"

namespace dsv4::test::idx {

inline constexpr std::uint32_t kSentinel = 0x7FA51234u;  // a NaN payload nobody computes

// The registry run under the default oracle passed and left the plan's logits row padding untouched.
inline void expect_runner_pass(const kern::Checked& r, const std::string& what) {
  EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary();
  EXPECT_TRUE(r.run.plan.value("row_padding_untouched", false)) << what << ": row padding written";
}

// Runs op's kernel (registry, this backend) on c into F32 [rows, width] outputs filled with kSentinel.
inline Tensor run_kernel(const std::string& op, const OpCase& c, std::int64_t rows, std::int64_t width,
                         const std::string& variant = "default", Json* plan = nullptr, int repeats = 1) {
  const kernels::KernelEntry* e = kernels::KernelRegistry::instance().find(op);
  if (!e) throw std::logic_error("no kernel registered for " + op);
  Outputs outs;
  Tensor t = Tensor::empty(DType::F32, {rows, width});
  for (std::int64_t i = 0; i < rows * width; ++i) t.set_code_linear(i, kSentinel);
  outs["logits"] = t;
  kernels::RunOptions o;
  o.variant = variant;
  o.repeats = repeats;
  Json p = e->run(c, outs, o);
  if (plan) *plan = p;
  return outs.at("logits");
}

// Exact score of one key and its error-model bound: the ops' shared bound (reference/ops/indexer_logits/
// indexer_bound.hpp, also the descriptors' error_bound), output rounding included.
using Scored = ops::indexer::ScoreBound;
inline Scored score(const std::vector<double>& q /*H·D*/, const std::vector<double>& k /*D*/, double sf,
                    const std::vector<double>& w /*H*/) {
  return ops::indexer::score_bound(q.data(), k.data(), static_cast<std::int64_t>(w.size()),
                                   static_cast<std::int64_t>(k.size()), sf, w.data(), ops::indexer::Dot::fp32);
}

// Element check: kernel value `got` vs the exact score within the bound. Returns an empty string when fine.
inline std::string check_value(float got, const Scored& s) {
  if (!std::isfinite(got)) return "not finite: " + std::to_string(got);
  const double err = std::fabs(static_cast<double>(got) - s.exact);
  if (err > s.bound) return "error " + std::to_string(err) + " > bound " + std::to_string(s.bound) + " (exact " +
                            std::to_string(s.exact) + ", got " + std::to_string(got) + ")";
  return "";
}

inline std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline std::vector<double> row_values(const Tensor& t, std::int64_t first, std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = t.get_linear(first + i);
  return v;
}

// ---- non-paged ------------------------------------------------------------------------------------------------

inline OpCase nonpaged_case(std::mt19937_64& rng, std::int64_t S, std::int64_t S_kv, std::int64_t H, std::int64_t D,
                            const std::vector<std::pair<int, int>>& ranges, DType dt = DType::F8_E4M3FN) {
  OpCase c;
  c.inputs["q"] = gemm::randn(dt, {S, H, D}, rng, 2.0);
  c.inputs["kv"] = gemm::randn(dt, {S_kv, D}, rng, 2.0);
  Tensor sf = Tensor::empty(DType::F32, {S_kv});
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (std::int64_t j = 0; j < S_kv; ++j) sf.set({j}, u(rng) / 448.0);
  c.inputs["kv_sf"] = sf;
  c.inputs["weights"] = gemm::randn(DType::F32, {S, H}, rng, 1.0 / std::sqrt(static_cast<double>(H)));
  Tensor ks = Tensor::empty(DType::I32, {S}), ke = Tensor::empty(DType::I32, {S});
  for (std::int64_t i = 0; i < S; ++i) {
    ks.set({i}, ranges[static_cast<std::size_t>(i)].first);
    ke.set({i}, ranges[static_cast<std::size_t>(i)].second);
  }
  c.inputs["cu_seq_len_k_start"] = ks;
  c.inputs["cu_seq_len_k_end"] = ke;
  c.attrs = {{"clean_logits", true}, {"max_seqlen_k", 0}, {"dot", "fp32"}};
  return c;
}

// Checks every element of a non-paged kernel output (see the file comment). Returns the number of bad elements
// (each reported through ADD_FAILURE, the first few only).
// report = false: count only (for buggy variants that must fail). sentinel = false: the outputs were poisoned by
// someone else (the oracle path), so unwritten positions are not checked.
inline int check_nonpaged(const OpCase& c, const Tensor& out, const std::string& what, bool report = true,
                          bool sentinel = true) {
  const Tensor& q = c.in("q");
  const Tensor& kv = c.in("kv");
  const std::int64_t S = q.size(0), H = q.size(1), D = q.size(2);
  const bool clean = c.attrs.at("clean_logits").get<bool>();
  const std::int64_t msk = c.attrs.at("max_seqlen_k").get<std::int64_t>();
  const std::int64_t width = out.size(1);
  const std::vector<double> sf = c.in("kv_sf").to_f64();
  int bad = 0;
  auto fail = [&](std::int64_t i, std::int64_t col, const std::string& why) {
    if (++bad <= 5 && report) ADD_FAILURE() << what << ": logits[" << i << ", " << col << "]: " << why;
  };
  for (std::int64_t i = 0; i < S; ++i) {
    const auto ks = static_cast<std::int64_t>(c.in("cu_seq_len_k_start").get({i}));
    const auto ke = static_cast<std::int64_t>(c.in("cu_seq_len_k_end").get({i}));
    const std::vector<double> qi = row_values(q, i * H * D, H * D), wi = row_values(c.in("weights"), i * H, H);
    for (std::int64_t col = 0; col < width; ++col) {
      const std::int64_t j = msk > 0 ? ks + col : col;
      const float got = static_cast<float>(out.get({i, col}));
      const std::uint32_t code = static_cast<std::uint32_t>(out.code({i, col}));
      if (j >= ks && j < ke) {
        const std::string e = check_value(got, score(qi, row_values(kv, j * D, D), sf[j], wi));
        if (!e.empty()) fail(i, col, e);
      } else if (clean) {
        if (!(std::isinf(got) && got < 0)) fail(i, col, "outside [ks, ke) must be −inf, got " + std::to_string(got));
      } else if (sentinel && code != kSentinel) {
        fail(i, col, "outside [ks, ke) with clean_logits=false must stay unwritten");
      }
    }
  }
  return bad;
}

// ---- paged ----------------------------------------------------------------------------------------------------

struct PagedSpec {
  std::int64_t B = 1, next_n = 1, H = 4, D = 64, block_kv = 16, max_ctx = 40;
  std::vector<std::vector<std::int64_t>> ctx;  // [B][next_n]
  std::int64_t extra_blocks = 3;               // unreferenced NaN blocks
  std::int64_t extra_table_cols = 1;           // block-table columns past what any row needs (garbage ids)
  DType dt = DType::F8_E4M3FN;
};

inline OpCase paged_case(std::mt19937_64& rng, const PagedSpec& s) {
  const formats::Format f8 = *format_of(s.dt);
  const std::int64_t need_blocks = (s.max_ctx + s.block_kv - 1) / s.block_kv;
  const std::int64_t max_blocks = need_blocks + s.extra_table_cols;
  const std::int64_t num_blocks = s.B * need_blocks + s.extra_blocks;
  OpCase c;
  c.attrs = {{"max_context_len", s.max_ctx}, {"clean_logits", false}, {"dot", "fp32"}};
  c.inputs["q"] = gemm::randn(s.dt, {s.B, s.next_n, s.H, s.D}, rng, 2.0);
  Tensor cache = Tensor::empty(DType::U8, {num_blocks, s.block_kv, 1, s.D + 4});
  const std::uint8_t nan8 = f8 == formats::Format::e4m3fnuz ? 0x80 : 0x7F;
  std::vector<std::uint8_t> row(static_cast<std::size_t>(s.D), nan8);
  for (std::int64_t blk = 0; blk < num_blocks; ++blk)
    for (std::int64_t t = 0; t < s.block_kv; ++t) ops::paged_kv_write(cache, blk, t, row.data(), std::nanf(""));
  std::vector<std::int64_t> perm(static_cast<std::size_t>(num_blocks));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  Tensor bt = Tensor::empty(DType::I32, {s.B, max_blocks});
  Tensor ctx = Tensor::empty(DType::I32, {s.B, s.next_n});
  std::normal_distribution<double> nd(0, 2.0);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (std::int64_t b = 0; b < s.B; ++b) {
    std::int64_t need = 0;
    for (std::int64_t t = 0; t < s.next_n; ++t) {
      ctx.set({b, t}, static_cast<double>(s.ctx[b][t]));
      need = std::max(need, s.ctx[b][t]);
    }
    for (std::int64_t i = 0; i < max_blocks; ++i) {
      // Blocks a row reaches come from the shuffled permutation; the rest are garbage ids the kernel must not use.
      const bool used = i * s.block_kv < need;
      bt.set({b, i}, used ? static_cast<double>(perm[b * need_blocks + i]) : (i % 2 ? -1.0 : 1e9));
    }
    for (std::int64_t t = 0; t < need; ++t) {
      for (auto& code : row) {
        do code = static_cast<std::uint8_t>(quant::encode_fp8_satfinite(f8, nd(rng)));
        while ((code & 0x7F) == 0 || code == nan8 || (code & 0x7F) == 0x7F);
      }
      ops::paged_kv_write(cache, perm[b * need_blocks + t / s.block_kv], t % s.block_kv, row.data(),
                          static_cast<float>(u(rng) / 448));
    }
  }
  c.inputs["kv_cache"] = cache;
  c.inputs["weights"] = gemm::randn(DType::F32, {s.B * s.next_n, s.H}, rng, 1.0 / std::sqrt(static_cast<double>(s.H)));
  c.inputs["context_lens"] = ctx;
  c.inputs["block_table"] = bt;
  return c;
}

// Checks every element of a paged kernel output: k < context_lens within the bound, the rest untouched.
inline int check_paged(const OpCase& c, const Tensor& out, const std::string& what, bool report = true,
                       bool sentinel = true) {
  const Tensor& q = c.in("q");
  const Tensor& cache = c.in("kv_cache");
  const Tensor& bt = c.in("block_table");
  const std::int64_t B = q.size(0), next_n = q.size(1), H = q.size(2), D = q.size(3), block_kv = cache.size(1);
  const formats::Format f8 = *format_of(q.dtype());
  const std::int64_t width = out.size(1);
  int bad = 0;
  auto fail = [&](std::int64_t r, std::int64_t k, const std::string& why) {
    if (++bad <= 5 && report) ADD_FAILURE() << what << ": logits[" << r << ", " << k << "]: " << why;
  };
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < next_n; ++t) {
      const std::int64_t r = b * next_n + t;
      const auto L = static_cast<std::int64_t>(c.in("context_lens").get({b, t}));
      const std::vector<double> qr = row_values(q, r * H * D, H * D), wr = row_values(c.in("weights"), r * H, H);
      for (std::int64_t k = 0; k < width; ++k) {
        if (k >= L) {
          if (sentinel && static_cast<std::uint32_t>(out.code({r, k})) != kSentinel)
            fail(r, k, "k >= context_len must stay unwritten");
          continue;
        }
        const auto blk = static_cast<std::int64_t>(bt.get({b, k / block_kv}));
        const std::byte* base = cache.data() + blk * block_kv * (D + 4);
        std::vector<double> key(static_cast<std::size_t>(D));
        for (std::int64_t d = 0; d < D; ++d)
          key[d] = formats::decode(f8, static_cast<std::uint32_t>(base[(k % block_kv) * D + d]));
        float sf;
        std::memcpy(&sf, base + block_kv * D + 4 * (k % block_kv), 4);
        const std::string e = check_value(static_cast<float>(out.get({r, k})), score(qr, key, sf, wr));
        if (!e.empty()) fail(r, k, e);
      }
    }
  return bad;
}

}  // namespace dsv4::test::idx
