// Kernel tests of topk (issue 7) through the tools' runner path (output poisoned, written-check on, default
// topk-set oracle vs the reference), each result also checked against the ops.md §5 contract itself
// (ops::check_topk_set with tie tolerance 0, independent of the reference's tie choice). Covered: default shapes x
// index bases on wave 64 and 32 (sim); hand-built rows: all ties, ties at the threshold, all -inf, empty range, row
// length < k, -0/+0, +inf and -FLT_MAX, negatives only; long rows (16K, 64K, 128K columns) with k = 2048 and 512;
// random sim schedules; refusals before launch (plan, runner, launcher); the raw_bits_key and neg_inf_valid
// variants (caught).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <set>

#include "kernels/topk/topk_kernel.hpp"
#include "reference/ops/topk/topk.hpp"
#include "tests/kernels/kernel_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::kern;
namespace tk = dsv4::kernels::topk;

namespace {

constexpr const char* kOp = "topk";
constexpr double kInf = std::numeric_limits<double>::infinity();

class TopkKernel : public KernelTest {};

void expect_pass(const Checked& r, const std::string& what) {
  EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary();
  ops::TopkConventions conv;
  conv.index_base = r.c.attrs.value("index_base", std::string("absolute"));
  const ops::TopkCheck chk =
      ops::check_topk_set(r.c.in("logits"), r.c.in("row_starts"), r.c.in("row_ends"),
                          r.c.attrs.at("topk").get<std::int64_t>(), r.run.outputs.at("topk_indices"), conv);
  EXPECT_TRUE(chk.ok) << what << ": contract: " << chk.reason;
}

OpCase topk_case(Tensor logits, std::vector<int> starts, std::vector<int> ends, std::int64_t k,
                 const std::string& base = "absolute") {
  const auto R = static_cast<std::int64_t>(starts.size());
  Tensor rs = Tensor::empty(DType::I32, {R}), re = Tensor::empty(DType::I32, {R});
  for (std::int64_t r = 0; r < R; ++r) rs.set({r}, starts[r]), re.set({r}, ends[r]);
  OpCase c;
  c.inputs["logits"] = std::move(logits);
  c.inputs["row_starts"] = rs;
  c.inputs["row_ends"] = re;
  c.attrs = {{"topk", k}, {"index_base", base}, {"masked", "minus1"}};
  return c;
}

// Hand-built rows, C = 40, topk = 8.
OpCase edge_case(const std::string& base) {
  const std::int64_t C = 40;
  Tensor x = Tensor::empty(DType::F32, {9, C});
  for (std::int64_t j = 0; j < C; ++j) {
    x.set({0, j}, 1.5);                                               // all ties
    x.set({1, j}, j < 5 ? 9.0 - j : (j % 3 == 0 ? 2.25 : -1.0));      // 5 above, 12 tied at the threshold 2.25
    x.set({2, j}, -kInf);                                             // all -inf
    x.set({3, j}, j % 13 == 0 ? 0.5 : -kInf);                         // 4 valid < k
    x.set({4, j}, 0.25 * (j % 7));                                    // empty range
    x.set({5, j}, j % 2 ? -0.0 : 0.0);                                // -0 / +0 ties
    x.set({6, j}, j == 3 ? kInf : (j == 4 ? -3.4028234663852886e38 : (j == 5 ? -kInf : -1.0 - j)));
    x.set({7, j}, -100.0 - 3.0 * j + (j % 5) * 0.001);                // negatives only
    x.set({8, j}, std::ldexp(1.0, static_cast<int>(j % 9) - 4) * ((j % 4) ? 1 : -1));
  }
  return topk_case(x, {0, 0, 0, 0, 17, 0, 0, 3, 5}, {40, 40, 40, 40, 17, 40, 40, 31, 12}, 8, base);
}

}  // namespace

TEST_F(TopkKernel, DefaultShapesIndexBasesBothWaveSizes) {
  auto rng = dsv4::test::rng_for_current_test();
  int cases = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int w : waves()) {
    use_wave(w);
    for (const Json& s : descriptor(kOp).default_shapes)
      for (const char* base : {"absolute", "row_relative"}) {
        OpCase c = generate(kOp, s, rng);
        c.attrs["index_base"] = base;
        c.attrs["masked"] = "minus1";
        const Checked r = run_and_judge(kOp, c);
        expect_pass(r, "wave " + std::to_string(w) + " " + s.dump() + " " + base);
        EXPECT_EQ(r.run.plan.value("wave_size", 0), w);
        ++cases;
      }
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ topk ] %d cases in %.3f s (reference + kernel + oracle)\n", cases, sec);
}

TEST_F(TopkKernel, TiesNegInfRowsShortRowsSignedZeros) {
  for (int w : waves()) {
    use_wave(w);
    for (const char* base : {"absolute", "row_relative"}) {
      const Checked r = run_and_judge(kOp, edge_case(base));
      expect_pass(r, std::string("edge rows ") + base + " wave " + std::to_string(w));
      const Tensor& o = r.run.outputs.at("topk_indices");
      auto minus1 = [&](std::int64_t row) {
        int n = 0;
        for (std::int64_t s = 0; s < 8; ++s) n += o.get({row, s}) == -1;
        return n;
      };
      EXPECT_EQ(minus1(0), 0);
      EXPECT_EQ(minus1(2), 8) << "an all -inf row selects nothing";
      EXPECT_EQ(minus1(3), 4) << "4 valid entries, k = 8";
      EXPECT_EQ(minus1(4), 8) << "empty range";
      // Row 1: the five largest (columns 0..4) must all be present.
      std::set<std::int64_t> row1;
      for (std::int64_t s = 0; s < 8; ++s) row1.insert(static_cast<std::int64_t>(o.get({1, s})));
      for (std::int64_t j = 0; j < 5; ++j) EXPECT_TRUE(row1.count(j)) << "column " << j;
      // Row 6 (absolute): +inf at column 3 first, -FLT_MAX is a valid value, -inf at 5 is never selected.
      std::set<std::int64_t> row6;
      for (std::int64_t s = 0; s < 8; ++s) row6.insert(static_cast<std::int64_t>(o.get({6, s})));
      EXPECT_TRUE(row6.count(3));
      EXPECT_FALSE(row6.count(5));
    }
  }
}

TEST_F(TopkKernel, LongRowsTopk2048And512) {
  auto rng = dsv4::test::rng_for_current_test();
  std::normal_distribution<double> nd(0.0, 1.0);
  const auto t0 = std::chrono::steady_clock::now();
  for (auto [C, k] : {std::pair<std::int64_t, std::int64_t>{16384, 2048}, {65536, 2048}, {131072, 512}}) {
    Tensor x = Tensor::empty(DType::F32, {2, C});
    for (std::int64_t j = 0; j < C; ++j) {
      x.set({0, j}, nd(rng));
      x.set({1, j}, j % 10 == 0 ? -kInf : std::round(nd(rng) * 16) / 16);  // heavy ties, -inf holes
    }
    const Checked r = run_and_judge(kOp, topk_case(x, {0, 100}, {static_cast<int>(C), static_cast<int>(C - 7)}, k));
    expect_pass(r, "C " + std::to_string(C) + " k " + std::to_string(k));
    EXPECT_EQ(r.run.plan.at("block").at(0).get<int>(), 1024);
  }
  std::printf("[ topk ] long rows in %.3f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TEST_F(TopkKernel, VariantsAreCaught) {
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : waves()) {
    use_wave(w);
    // Negative and positive logits, full rows longer than k: raw float bits misorder the negatives.
    OpCase c = generate(kOp, Json{{"R", 4}, {"C", 300}, {"topk", 40}}, rng);
    c.attrs["index_base"] = "absolute";
    c.attrs["masked"] = "minus1";
    expect_pass(run_and_judge(kOp, c), "default");
    const Checked raw = run_and_judge(kOp, c, "raw_bits_key");
    EXPECT_FALSE(raw.verdict.pass) << "raw_bits_key must be caught: " << raw.summary();
    // Short rows with -inf holes: counting -inf as valid fills slots that must be -1.
    const Checked ninf = run_and_judge(kOp, edge_case("absolute"), "neg_inf_valid");
    EXPECT_FALSE(ninf.verdict.pass) << "neg_inf_valid must be caught: " << ninf.summary();
  }
}

TEST_F(TopkKernel, RandomScheduleOnSimGivesValidSets) {
  if (!port::sim::sim_active()) GTEST_SKIP() << "scheduler seeds exist on sim only";
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : {64, 32})
    for (std::uint64_t seed : {1u, 2u}) {
      use_random_schedule(w, seed);
      OpCase c = generate(kOp, Json{{"R", 3}, {"C", 500}, {"topk", 64}}, rng);
      c.attrs["index_base"] = "row_relative";
      c.attrs["masked"] = "minus1";
      expect_pass(run_and_judge(kOp, c), "random schedule wave " + std::to_string(w) + " seed " + std::to_string(seed));
    }
}

TEST_F(TopkKernel, RunnerRefusesSelectNegInfAndTopkAbove2048) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"R", 2}, {"C", 50}, {"topk", 8}}, rng);
  c.attrs["index_base"] = "absolute";
  c.attrs["masked"] = "select_neg_inf";
  try {
    (void)run_and_judge(kOp, c);
    FAIL() << "expected CannotImplement";
  } catch (const kernels::CannotImplement& e) {
    EXPECT_NE(std::string(e.what()).find("select_neg_inf"), std::string::npos) << e.what();
  }
  c.attrs["masked"] = "minus1";
  c.attrs["topk"] = 4096;
  try {
    (void)run_and_judge(kOp, c);
    FAIL() << "expected CannotImplement";
  } catch (const kernels::CannotImplement& e) {
    EXPECT_NE(std::string(e.what()).find("2048"), std::string::npos) << e.what();
  }
}

TEST(TopkPlan, LdsAndLimitsAsDataAndTheLauncherRefusesBeforeLaunch) {
  tk::TopkShape s;
  s.rows = 64;
  s.cols = 65536;
  s.topk = 2048;
  for (const auto* a : {&port::kGfx942, &port::kGfx950, &port::kSm90}) {
    const tk::TopkPlan p = tk::make_topk_plan(s, *a);
    ASSERT_TRUE(p.ok) << p.reason;
    EXPECT_EQ(p.lds_bytes, 2048u * 4 + 2048u * 4 + 16);
    EXPECT_LE(p.lds_bytes, a->lds_bytes_per_block);
    EXPECT_EQ(p.grid, 64);
    EXPECT_EQ(p.block, 1024);
    EXPECT_EQ(p.workspace_bytes, 0u);
    EXPECT_EQ(p.bytes_compulsory(), 64.0 * (65536 * 4 + 2048 * 4 + 8));
  }
  s.cols = 100;
  EXPECT_EQ(tk::make_topk_plan(s, port::kGfx950).block, 256);
  tk::TopkOptions o;
  o.block_threads = 96;
  auto p = tk::make_topk_plan(s, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("power of two"), std::string::npos) << p.reason;
  s.topk = 0;
  EXPECT_FALSE(tk::can_implement(s, port::kGfx950));
  s.topk = 16;
  s.cols = (std::int64_t{1} << 24) + 1;
  p = tk::make_topk_plan(s, port::kGfx950);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("2^24"), std::string::npos) << p.reason;
  if (!port::device_available()) GTEST_SKIP() << "launcher part: " << port::device_unavailable_reason();
  port::Stream stream;
  try {
    tk::launch_topk(p, {}, stream);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
  }
}
