// Tests of the indexer error bound (reference/ops/indexer_logits/indexer_bound.hpp), registered as the error_bound
// of indexer_logits and indexer_logits_paged: a hand-derived bound, fp32 emulations of the kernel arithmetic in
// several legal orders (DeepGEMM: scale after the head sum; vLLM: scale per dot; reversed D and H order; dot=bf16)
// that must stay within it on generated cases, a bound tight enough that losing one head's term exceeds it, and
// the default oracle policy of both ops (error-bound) passing the reference and failing a perturbed element.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "oracle/default_policies.hpp"
#include "oracle/judge.hpp"
#include "reference/formats/format.hpp"
#include "reference/ops/common/gemm_matrix.hpp"
#include "reference/ops/indexer_logits/indexer_bound.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

using ops::indexer::Dot;

// One key scored the way a kernel may legally do it, in fp32: fp32 FMA dots over D (forward or reversed), optional
// bf16 rounding of each dot, relu, fp32 head sum (forward or reversed) with sf after the sum (DeepGEMM) or per dot
// (vLLM), one fp32 result. drop_head >= 0 leaves that head out (a bug the bound must see).
float emulate(const std::vector<double>& q, const std::vector<double>& k, double sf, const std::vector<double>& w,
              Dot dot, bool reversed, bool sf_per_dot, int drop_head = -1) {
  const auto H = static_cast<int>(w.size()), D = static_cast<int>(k.size());
  const auto fsf = static_cast<float>(sf);
  float acc = 0.f;
  for (int hh = 0; hh < H; ++hh) {
    const int h = reversed ? H - 1 - hh : hh;
    if (h == drop_head) continue;
    float d = 0.f;
    for (int ii = 0; ii < D; ++ii) {
      const int i = reversed ? D - 1 - ii : ii;
      d = std::fmaf(static_cast<float>(q[h * D + i]), static_cast<float>(k[i]), d);
    }
    if (dot == Dot::bf16) d = static_cast<float>(gemm::round_to_bf16(d));
    float r = sf_per_dot ? d * fsf : d;
    r = r > 0.f ? r : 0.f;
    acc += r * static_cast<float>(w[h]);
  }
  return sf_per_dot ? acc : acc * fsf;
}

struct Key {
  std::vector<double> q, k, w;
  double sf;
  std::int64_t row, col;
};

// Every scored (row, column) of a case with its query, key, scale and weights, read independently of the bound code.
std::vector<Key> keys_of(const std::string& op, const OpCase& c) {
  std::vector<Key> out;
  const Tensor& q = c.in("q");
  const gemm::MatD W = gemm::to_matrix(c.in("weights"));
  auto wrow = [&](std::int64_t r) { return std::vector<double>(W.row(r).data(), W.row(r).data() + W.cols()); };
  auto qrow = [&](const Tensor& qr) {
    const gemm::MatD Q = gemm::to_matrix(qr);
    return std::vector<double>(Q.data(), Q.data() + Q.size());
  };
  if (op == "indexer_logits") {
    const gemm::MatD KV = gemm::to_matrix(c.in("kv"));
    const std::vector<double> sf = gemm::to_vector(c.in("kv_sf"));
    const std::int64_t msk = c.attrs.value("max_seqlen_k", std::int64_t{0});
    for (std::int64_t i = 0; i < q.size(0); ++i) {
      const auto ks = static_cast<std::int64_t>(c.in("cu_seq_len_k_start").get({i}));
      const auto ke = static_cast<std::int64_t>(c.in("cu_seq_len_k_end").get({i}));
      for (std::int64_t j = ks; j < ke; ++j)
        out.push_back({qrow(q.select(0, i)), std::vector<double>(KV.row(j).data(), KV.row(j).data() + KV.cols()),
                       wrow(i), sf[j], i, msk > 0 ? j - ks : j});
    }
    return out;
  }
  const Tensor& cache = c.in("kv_cache");
  const std::int64_t next_n = q.size(1), D = q.size(3), bkv = cache.size(1);
  for (std::int64_t b = 0; b < q.size(0); ++b)
    for (std::int64_t j = 0; j < next_n; ++j) {
      const auto L = static_cast<std::int64_t>(c.in("context_lens").get({b, j}));
      for (std::int64_t t = 0; t < L; ++t) {
        const auto blk = static_cast<std::int64_t>(c.in("block_table").get({b, t / bkv}));
        const std::byte* base = cache.data() + blk * bkv * (D + 4);
        std::vector<double> key(static_cast<std::size_t>(D));
        for (std::int64_t d = 0; d < D; ++d)
          key[static_cast<std::size_t>(d)] =
              formats::decode(*format_of(q.dtype()), static_cast<std::uint32_t>(base[(t % bkv) * D + d]));
        float sf;
        std::memcpy(&sf, base + bkv * D + 4 * (t % bkv), 4);
        out.push_back({qrow(q.select(0, b).select(0, j)), key, wrow(b * next_n + j), sf, b * next_n + j, t});
      }
    }
  return out;
}

TEST(IndexerBound, HandDerived) {
  // H = 2, D = 2, sf = 1, w = [1, −2]; q0 = [1, 2], q1 = [−1, 0.5], k = [−1, 1]:
  // dot0 = 1 (Σ|q·k| = 3), dot1 = 1.5 (Σ|q·k| = 1.5), exact = 1 − 3 = −2.
  const double u = 0x1p-24, g2 = 2 * u / (1 - 2 * u), g3 = 3 * u / (1 - 3 * u);
  const std::vector<double> q{1, 2, -1, 0.5}, k{-1, 1}, w{1, -2};
  const ops::indexer::ScoreBound s = ops::indexer::score_bound(q.data(), k.data(), 2, 2, 1.0, w.data(), Dot::fp32);
  EXPECT_EQ(s.exact, -2.0);
  // dots: 1·γ2·3 + 2·γ2·1.5 = 6γ2; heads: (1 + 3γ2)·1 + (1.5 + 1.5γ2)·2 = 4 + 6γ2.
  double b = 6 * g2 + g3 * (4 + 6 * g2);
  b += u * (2 + b) + 4 * std::ldexp(1.0, -149);
  b += 0x1p-22;  // fp32 spacing in [2, 4)
  EXPECT_DOUBLE_EQ(s.bound, b);
  // dot=bf16 adds one bf16 step of each dot (2^-7 at |dot| in [1, 2)) through both heads' weights.
  const ops::indexer::ScoreBound sb = ops::indexer::score_bound(q.data(), k.data(), 2, 2, 1.0, w.data(), Dot::bf16);
  EXPECT_EQ(sb.exact, -2.0);
  EXPECT_GT(sb.bound, 3 * 0x1p-7);
  EXPECT_LT(sb.bound, 3 * 0x1p-7 + 1e-5);
}

TEST(IndexerBound, NonFiniteInputsGiveInfiniteBound) {
  const std::vector<double> q{1, std::numeric_limits<double>::infinity()}, k{1, 1}, w{1};
  EXPECT_EQ(ops::indexer::score_bound(q.data(), k.data(), 1, 2, 1.0, w.data(), Dot::fp32).bound,
            std::numeric_limits<double>::infinity());
}

// Generated cases of both ops and both dot variants: every legal fp32 emulation lies within the registered bound
// against the reference's fp32 output, the bound is 0 exactly where the reference is −inf, and dropping one head
// exceeds the bound on most elements (so the bound is not vacuous).
TEST(IndexerBound, EmulatedKernelsWithinRegisteredBound) {
  auto rng = test::rng_for_current_test();
  int checked = 0, dropped_caught = 0, dropped_total = 0;
  double worst_ratio = 0;
  for (const std::string op : {"indexer_logits", "indexer_logits_paged"}) {
    const OpDescriptor* d = Registry::instance().find(op);
    ASSERT_TRUE(d && d->generate && d->error_bound) << op << ": descriptor, generator or error_bound missing";
    for (const Json& shape : d->default_shapes)
      for (Dot dot : {Dot::fp32, Dot::bf16}) {
        OpCase c = d->generate(rng, shape);
        c.attrs["dot"] = dot == Dot::bf16 ? "bf16" : "fp32";
        validate_case(*d, c);
        const Outputs ref = run_reference(op, c);
        const Tensor& logits = ref.at("logits");
        const Tensor bound = d->error_bound(c, ref).at("logits");
        ASSERT_EQ(bound.shape(), logits.shape());
        for (std::int64_t i = 0; i < logits.numel(); ++i) {
          const double e = logits.get_linear(i), b = bound.get_linear(i);
          if (std::isinf(e) && e < 0) EXPECT_EQ(b, 0.0) << op << " element " << i;
          else EXPECT_GT(b, 0.0) << op << " element " << i;
        }
        for (const Key& key : keys_of(op, c)) {
          const double e = logits.get({key.row, key.col}), b = bound.get({key.row, key.col});
          for (int mode = 0; mode < 4; ++mode) {
            const float got = emulate(key.q, key.k, key.sf, key.w, dot, mode & 1, mode & 2);
            const double err = std::fabs(got - e);
            ASSERT_LE(err, b) << op << " " << shape.dump() << " dot " << c.attrs["dot"] << " mode " << mode
                              << " at [" << key.row << ", " << key.col << "]";
            worst_ratio = std::max(worst_ratio, err / b);
            ++checked;
          }
          if (dot == Dot::fp32 && key.w.size() > 1) {
            ++dropped_total;
            dropped_caught += std::fabs(emulate(key.q, key.k, key.sf, key.w, dot, false, false, 0) - e) > b;
          }
        }
      }
  }
  std::printf("[ bound ] %d emulated values within the bound, worst err/bound %.3g; dropped head caught %d/%d\n",
              checked, worst_ratio, dropped_caught, dropped_total);
  EXPECT_GT(checked, 1000);
  // Head 0's term relu(dot·sf)·w is zero for about half the keys (relu); the rest must exceed the bound.
  EXPECT_GT(dropped_caught, dropped_total / 4);
}

// The ops' default policy is the error-bound policy now that they register the bound: the reference's own output
// passes, and one element moved by twice its bound fails.
TEST(IndexerBound, DefaultOracleIsErrorBound) {
  Registry& reg = Registry::instance();
  oracle::require_default_policies(reg);
  auto rng = test::rng_for_current_test();
  for (const std::string op : {"indexer_logits", "indexer_logits_paged"}) {
    const OpDescriptor* d = reg.find(op);
    ASSERT_TRUE(d && d->generate && d->error_bound);
    ASSERT_EQ(d->oracle.at("logits").policy, "error-bound") << op;
    OpCase c = d->generate(rng, d->default_shapes.front());
    validate_case(*d, c);
    const Outputs ref = run_reference(op, c);
    const oracle::JudgeResult ok = oracle::judge(*d, c, ref, ref);
    EXPECT_TRUE(ok.pass) << op;
    ASSERT_EQ(ok.outputs.size(), 1u);
    EXPECT_EQ(ok.outputs[0].policy, "error-bound");
    const Tensor bound = d->error_bound(c, ref).at("logits");
    Tensor bad = ref.at("logits").clone();
    std::int64_t at = -1;
    for (std::int64_t i = 0; i < bad.numel() && at < 0; ++i)
      if (std::isfinite(bad.get_linear(i)) && bad.get_linear(i) != 0) at = i;
    ASSERT_GE(at, 0) << op << ": no finite nonzero logit in the default case";
    bad.set_linear(at, bad.get_linear(at) + 2 * bound.get_linear(at) + 1e-6 * std::fabs(bad.get_linear(at)));
    const oracle::JudgeResult r = oracle::judge(*d, c, ref, Outputs{{"logits", bad}});
    EXPECT_FALSE(r.pass) << op << ": one element off by twice its bound must fail";
  }
}

}  // namespace
}  // namespace dsv4
