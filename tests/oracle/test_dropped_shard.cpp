// The dropped-K-shard experiment (issue 4): a skinny-GEMM-like case out = a b^T (bf16 inputs, exact
// float64 product, bf16 output) where one K-shard's partial sum never reaches the rows of one
// N-tile (rows 16..31), as known-bugs.md #1's LDS overflow does. Three judges:
//   allclose(atol 1e-3, rtol 1e-2)   vLLM's loose skinny-GEMM tolerance;
//   error-bound, worst case          gamma_K * sum|a b| + one bf16 ulp, multiple 1;
//   error-bound, probabilistic       8 sqrt(K) u * sum|a b| + one bf16 ulp, multiple 1.
// under three input scalings. A simulated correct kernel (fp32 split-K partials, fp32 combine)
// must pass all three. Findings asserted: the probabilistic error bound catches every dropped
// shard and localises it to N-tile 1; there is a realistic case (xnorm inputs, large K, a narrow
// tail shard) that the loose allclose lets through and it catches. The table is printed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "oracle/compare.hpp"
#include "oracle/report.hpp"
#include "tests/oracle/oracle_test_util.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

namespace {

struct Scaling {
  const char* name;
  bool xnorm_a, xnorm_b;  // scale that input by sqrt(2/K), else N(0,1)
};

struct Drop {
  std::int64_t K, lo, hi;
  const char* what;
};

struct Judged {
  Verdict allclose, worst, prob;
};

Judged judge_all(const Tensor& actual, const Tensor& expected, const Tensor& bw, const Tensor& bp, const TileMap* tm) {
  CompareContext ctx;
  ctx.output_name = "out";
  ctx.tiles = tm;
  Judged j;
  j.allclose = compare(actual, expected, parse_policy("allclose", {{"atol", 1e-3}, {"rtol", 1e-2}}), ctx);
  Policy eb = parse_policy("error-bound", {{"multiple", 1}});
  ctx.bound = &bw;
  j.worst = compare(actual, expected, eb, ctx);
  ctx.bound = &bp;
  j.prob = compare(actual, expected, eb, ctx);
  return j;
}

std::string cell(const Verdict& v) {
  char b[48];
  std::snprintf(b, sizeof b, "%s %5lld", v.pass ? "PASS" : "fail", static_cast<long long>(v.failed));
  return b;
}

}  // namespace

TEST(DroppedShard, ErrorBoundCatchesWhatLooseAllcloseMisses) {
  auto rng = test::rng_for_current_test();
  const std::int64_t N = 32, M = 32;
  const Scaling scalings[] = {
      {"xnorm: a,b ~ N(0,1)*sqrt(2/K)", true, true},
      {"weights xnorm: b ~ N(0,1)*sqrt(2/K)", false, true},
      {"unit: a,b ~ N(0,1)", false, false},
  };
  // K = 5248 / 10368: the onsets of known-bugs.md #1 (CHUNKK=2: 256-wide shards). K = 32776 =
  // 128*256 + 8: a large-K shape whose last shard holds 8 elements.
  const Drop drops[] = {{5248, 2560, 3072, "512-wide shard"},
                        {5248, 5120, 5248, "128-wide tail shard"},
                        {10368, 4096, 4352, "256-wide shard"},
                        {32776, 32768, 32776, "8-wide tail shard"}};
  int allclose_missed = 0, worst_missed = 0, prob_missed = 0, total = 0;
  std::printf("dropped shard in rows 16..31 of a [%lld, %lld] bf16 output; cells: verdict, failing elements of %lld\n",
              static_cast<long long>(N), static_cast<long long>(M), static_cast<long long>(16 * M));
  std::printf("%-38s %-20s %6s | %-12s | %-12s | %-12s | correct fp32 kernel\n", "scaling", "dropped", "K",
              "allclose", "eb worst", "eb prob");
  for (const Scaling& s : scalings)
    for (const Drop& d : drops) {
      double sk = std::sqrt(2.0 / static_cast<double>(d.K));
      auto g = testutil::make_gemm(N, M, d.K, s.xnorm_a ? sk : 1.0, s.xnorm_b ? sk : 1.0, rng);
      TileMap tm;
      tm.rows = {16, "N-tile", {}};
      tm.plan = "synthetic split-K";
      tm.k_shard_size = 256;
      tm.k_shards = (d.K + 255) / 256;
      Tensor expected = Tensor::from_f64(DType::BF16, {N, M}, g.exact);
      Tensor bw = testutil::gemm_bound(g, DType::BF16, false), bp = testutil::gemm_bound(g, DType::BF16, true);
      Tensor broken = testutil::gemm_with_dropped_shard(g, d.lo, d.hi, [](std::int64_t n) { return n >= 16 && n < 32; },
                                                        DType::BF16);
      Tensor good = testutil::gemm_fp32_split_k(g, 256, DType::BF16);
      Judged b = judge_all(broken, expected, bw, bp, &tm);
      Judged ok = judge_all(good, expected, bw, bp, &tm);
      ++total;
      allclose_missed += b.allclose.pass;
      worst_missed += b.worst.pass;
      prob_missed += b.prob.pass;
      std::printf("%-38s %-20s %6lld | %-12s | %-12s | %-12s | %s %s %s\n", s.name, d.what, static_cast<long long>(d.K),
                  cell(b.allclose).c_str(), cell(b.worst).c_str(), cell(b.prob).c_str(),
                  ok.allclose.pass ? "pass" : "FAIL", ok.worst.pass ? "pass" : "FAIL", ok.prob.pass ? "pass" : "FAIL");
      if (b.allclose.pass && !b.prob.pass) std::printf("    allclose MISSED it; probabilistic error-bound: %s\n", b.prob.where.summary.c_str());
      // A correct fp32 kernel passes every judge; the dropped shard fails the probabilistic bound
      // and is localised to N-tile 1.
      EXPECT_TRUE(ok.allclose.pass && ok.worst.pass && ok.prob.pass) << s.name << " " << d.what;
      EXPECT_FALSE(b.prob.pass) << s.name << " " << d.what;
      EXPECT_NE(b.prob.where.summary.find("(N-tile 1)"), std::string::npos) << b.prob.where.summary;
      for (auto r : b.prob.where.rows) EXPECT_TRUE(r >= 16 && r < 32) << r;
      if (s.xnorm_a && s.xnorm_b && d.K == 32776) {
        EXPECT_TRUE(b.allclose.pass) << "expected loose allclose to miss the 8-wide tail shard at K=32776";
      }
    }
  std::printf("missed of %d dropped-shard cases: allclose(1e-3,1e-2) %d, error-bound worst-case %d, error-bound "
              "probabilistic %d\n", total, allclose_missed, worst_missed, prob_missed);
  EXPECT_GT(allclose_missed, 0);
  EXPECT_EQ(prob_missed, 0);
}
