// Kernel tests of merge_attn_states (issue 7) through the tools' runner path (outputs poisoned, written-check on,
// oracle default policy vs the float64 reference): the op's default shapes on wave 64 and 32 (sim), both-empty
// tokens mid-batch in the -inf and +inf forms with NaN garbage in the prefix (zeros and copy_prefix),
// prefill_tokens_with_context 0 / interior / T, padded head strides, transposed LSE views, FP8 output (e4m3fn,
// e4m3fnuz), output_lse not requested, refusal before launch, and the nan_both_empty bug-zoo variant (caught by the
// oracle's NaN rule exactly at the both-empty rows while the default passes the same cases).
// Labels gpu+sim: on a GPU build the same tests run on the device (skipped without one).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "kernels/merge_attn_states/merge_plan.hpp"
#include "tests/kernels/kernel_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::kern;
namespace mg = dsv4::kernels::merge;

namespace {

constexpr const char* kOp = "merge_attn_states";
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class MergeKernel : public KernelTest {};

void expect_pass(const Checked& r, const std::string& what) {
  EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary();
  EXPECT_TRUE(r.run.plan.value("head_padding_untouched", false)) << what << ": kernel wrote into the head padding";
}

// Sets both LSEs of token t (all heads) empty: -inf / -inf, or +inf on the suffix for odd heads.
void make_both_empty(OpCase& c, std::int64_t t, bool pos_inf_form) {
  Tensor& pl = c.inputs.at("prefix_lse");
  Tensor& sl = c.inputs.at("suffix_lse");
  for (std::int64_t h = 0; h < pl.size(0); ++h) {
    pl.set({h, t}, -kInf);
    sl.set({h, t}, pos_inf_form && h % 2 ? kInf : -kInf);
  }
}

// NaN garbage in the prefix of token t (the "expected to be all zeros" buffer that is not).
void nan_prefix(OpCase& c, std::int64_t t) {
  Tensor& P = c.inputs.at("prefix_output");
  for (std::int64_t h = 0; h < P.size(1); ++h)
    for (std::int64_t d = 0; d < P.size(2); d += 3) P.set({t, h, d}, kNaN);
}

}  // namespace

TEST_F(MergeKernel, DefaultShapesMatchReferenceOnBothWaveSizes) {
  auto rng = dsv4::test::rng_for_current_test();
  const auto& shapes = descriptor(kOp).default_shapes;
  int cases = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int w : waves()) {
    use_wave(w);
    for (const Json& s : shapes)
      for (int rep = 0; rep < 2; ++rep) {
        const Checked r = run_and_judge(kOp, generate(kOp, s, rng));
        expect_pass(r, "wave " + std::to_string(w) + " shape " + s.dump());
        ++cases;
      }
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ merge ] %d cases in %.3f s: %.1f cases/s (reference + kernel + oracle)\n", cases, sec, cases / sec);
}

TEST_F(MergeKernel, BothEmptyMidBatchWithNanPrefixGarbage) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const char* both : {"zeros", "copy_prefix"})
    for (bool pos_inf : {false, true}) {
      OpCase c = generate(kOp, Json{{"T", 7}, {"H", 4}, {"D", 64}}, rng);
      make_both_empty(c, 2, pos_inf);
      make_both_empty(c, 4, pos_inf);
      nan_prefix(c, 2);
      nan_prefix(c, 4);
      c.attrs["both_empty"] = both;
      const Checked r = run_and_judge(kOp, c);
      expect_pass(r, std::string(both) + (pos_inf ? " +inf form" : " -inf form"));
      const Tensor& out = r.run.outputs.at("output");
      const Tensor& lse = r.run.outputs.at("output_lse");
      for (std::int64_t t : {2, 4})
        for (std::int64_t h = 0; h < 4; ++h) {
          EXPECT_EQ(lse.get({h, t}), -kInf) << "t=" << t << " h=" << h;
          for (std::int64_t d = 0; d < 64; ++d) {
            if (std::string(both) == "zeros") {
              EXPECT_EQ(out.get({t, h, d}), 0.0) << "t=" << t << " h=" << h << " d=" << d;
            } else {  // copy_prefix: the bits of the prefix, NaN garbage included
              const double p = r.c.in("prefix_output").get({t, h, d});
              if (std::isnan(p)) {
                EXPECT_TRUE(std::isnan(out.get({t, h, d})));
              } else {
                EXPECT_EQ(out.get({t, h, d}), p);
              }
            }
          }
        }
    }
}

TEST_F(MergeKernel, PrefillTokensWithContextZeroInteriorAll) {
  auto rng = dsv4::test::rng_for_current_test();
  for (std::int64_t ptc : {0, 3, 6}) {
    OpCase c = generate(kOp, Json{{"T", 6}, {"H", 3}, {"D", 32}, {"dtype", "F16"}, {"prefill_tokens_with_context", ptc}},
                        rng);
    make_both_empty(c, 4, true);  // beyond ptc = 3: the raw suffix lse (+inf on odd heads) must be copied
    const Checked r = run_and_judge(kOp, c);
    expect_pass(r, "ptc " + std::to_string(ptc));
    if (ptc == 3) {
      // Token 4 copies the suffix: output_lse is the raw suffix lse, +inf kept.
      EXPECT_EQ(r.run.outputs.at("output_lse").get({1, 4}), kInf);
      EXPECT_EQ(r.run.outputs.at("output").get({4, 1, 5}), r.c.in("suffix_output").get({4, 1, 5}));
    }
  }
}

TEST_F(MergeKernel, PaddedHeadStrideAndLseLayouts) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const char* dt : {"F32", "BF16", "F16"})
    for (bool tr : {true, false}) {
      const Checked r =
          run_and_judge(kOp, generate(kOp, Json{{"T", 5}, {"H", 3}, {"D", 64}, {"dtype", dt}, {"pad", 16},
                                                {"transposed_lse", tr}}, rng));
      expect_pass(r, std::string(dt) + (tr ? " transposed lse" : " [H,T] lse"));
    }
}

TEST_F(MergeKernel, Fp8OutputBothFlavours) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const char* f : {"e4m3fn", "e4m3fnuz"})
    for (const char* dt : {"BF16", "F32"}) {
      OpCase c = generate(kOp, Json{{"T", 6}, {"H", 4}, {"D", 64}, {"dtype", dt}, {"output_scale", 0.05}}, rng);
      c.attrs["output_fp8_format"] = f;
      // Values far above 448 * 0.05 to exercise the saturating clamp.
      c.inputs.at("prefix_output").set({1, 1, 1}, 1e4);
      c.inputs.at("suffix_output").set({1, 1, 1}, 1e4);
      c.inputs.at("prefix_output").set({1, 2, 2}, -1e4);
      c.inputs.at("suffix_output").set({1, 2, 2}, -1e4);
      const Checked r = run_and_judge(kOp, c);
      expect_pass(r, std::string(f) + " " + dt);
      const double fmax = std::string(f) == "e4m3fn" ? 448.0 : 240.0;
      EXPECT_EQ(r.run.outputs.at("output").get({1, 1, 1}), fmax);
      EXPECT_EQ(r.run.outputs.at("output").get({1, 2, 2}), -fmax);
    }
}

TEST_F(MergeKernel, OutputLseNotRequested) {
  auto rng = dsv4::test::rng_for_current_test();
  const Checked r = run_and_judge(kOp, generate(kOp, Json{{"T", 6}, {"H", 8}, {"D", 128}}, rng), "default", "output_lse");
  ASSERT_EQ(r.run.outputs.count("output_lse"), 0u);
  expect_pass(r, "no output_lse");
}

TEST_F(MergeKernel, RefusesDNotMultipleOfPackBeforeLaunch) {
  mg::MergeShape s;
  s.t = 2;
  s.h = 2;
  s.d = 12;  // bf16 pack = 8
  const mg::MergePlan p = mg::make_merge_plan(s, port::kGfx950);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("16-byte pack"), std::string::npos) << p.reason;
  auto rng = dsv4::test::rng_for_current_test();
  try {
    (void)run_and_judge(kOp, generate(kOp, Json{{"T", 2}, {"H", 2}, {"D", 12}}, rng));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("D = 12"), std::string::npos) << e.what();
  }
  s.d = 16;
  s.head_stride = 20;
  EXPECT_FALSE(mg::can_implement(s, port::kGfx950));
  s.head_stride = 24;
  EXPECT_TRUE(mg::can_implement(s, port::kGfx950));
}

TEST_F(MergeKernel, NanBothEmptyVariantCaughtWhereDefaultPasses) {
  auto rng = dsv4::test::rng_for_current_test();
  for (bool pos_inf : {false, true}) {
    OpCase c = generate(kOp, Json{{"T", 6}, {"H", 8}, {"D", 128}}, rng);
    make_both_empty(c, 3, pos_inf);
    const Checked good = run_and_judge(kOp, c);
    expect_pass(good, "default");
    const Checked bad = run_and_judge(kOp, c, "nan_both_empty");
    EXPECT_FALSE(bad.verdict.pass) << "the oracle must catch known-bugs #6";
    const oracle::Verdict& v = bad.of("output");
    EXPECT_GT(v.counts.count("nan_mismatch") ? v.counts.at("nan_mismatch") : 0, 0) << bad.summary();
    // NaN-position rule: every NaN the bug produces lies in a row whose both LSEs are empty.
    const Tensor& out = bad.run.outputs.at("output");
    const Tensor& pl = c.inputs.at("prefix_lse");
    const Tensor& sl = c.inputs.at("suffix_lse");
    std::int64_t nan_rows = 0;
    for (std::int64_t t = 0; t < 6; ++t)
      for (std::int64_t h = 0; h < 8; ++h) {
        const double p = pl.get({h, t}), s = sl.get({h, t});
        const bool empty = (std::isinf(p)) && (std::isinf(s));
        const bool nan_in = std::isnan(p) || std::isnan(s);
        const bool row_nan = std::isnan(out.get({t, h, 0}));
        if (!nan_in) {
          EXPECT_EQ(row_nan, empty) << "t=" << t << " h=" << h;
        }
        nan_rows += row_nan && empty;
      }
    EXPECT_GE(nan_rows, 8);
  }
}

TEST_F(MergeKernel, NanLseOneSidedUnderflowAndRawPosInf) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"T", 6}, {"H", 4}, {"D", 64}, {"dtype", "F32"}}, rng);
  Tensor& pl = c.inputs.at("prefix_lse");
  Tensor& sl = c.inputs.at("suffix_lse");
  pl.set({1, 0}, kNaN);           // NaN propagates to the whole row and the lse
  sl.set({2, 1}, kNaN);
  pl.set({0, 4}, 150.0);          // |p - s| > 100: exp underflows on one side only
  sl.set({0, 4}, 20.0);
  pl.set({3, 5}, -130.0);
  sl.set({3, 5}, 5.0);
  const Checked r = run_and_judge(kOp, c);
  expect_pass(r, "NaN lse / one-sided underflow");
  EXPECT_TRUE(std::isnan(r.run.outputs.at("output").get({0, 1, 7})));
  EXPECT_TRUE(std::isnan(r.run.outputs.at("output_lse").get({1, 0})));
  EXPECT_EQ(r.run.outputs.at("output").get({4, 0, 3}), r.c.in("prefix_output").get({4, 0, 3}));  // weight exactly 1
  // pos_inf_lse = raw (a kernel unaware of FA2's marker): the reference says NaN for +inf rows; so does the kernel.
  OpCase raw = generate(kOp, Json{{"T", 5}, {"H", 2}, {"D", 32}, {"dtype", "F16"}}, rng);
  raw.inputs.at("prefix_lse").set({1, 3}, kInf);
  raw.attrs["pos_inf_lse"] = "raw";
  expect_pass(run_and_judge(kOp, raw), "pos_inf_lse raw");
}

TEST(MergeKernelRegistry, BothKernelsRegisteredWithTheirBugZooVariants) {
  const auto* m = kernels::KernelRegistry::instance().find("merge_attn_states");
  const auto* q = kernels::KernelRegistry::instance().find("per_token_group_quant_fp8");
  ASSERT_NE(m, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(m->variants, (std::vector<std::string>{"default", "nan_both_empty"}));
  EXPECT_EQ(q->variants, (std::vector<std::string>{"default", "wave32_reduction"}));
  EXPECT_FALSE(m->check_shapes.empty());
  EXPECT_FALSE(q->check_shapes.empty());
}
