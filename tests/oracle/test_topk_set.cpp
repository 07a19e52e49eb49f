// The topk-set policy: order is free, ties within tie_tol of the k-th value may swap, -1 padding
// must match, duplicates/out-of-range/unwritten slots fail, and a non-tie substitution fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "oracle/compare.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

namespace {

// Row 0: distinct logits (no ties), row 1: ties at the k-th value, row 2: only 3 finite valid
// entries (row_ends = 3) so 2 slots are -1 padding. C = 16, topk = 5.
struct TopkFixture : ::testing::Test {
  void SetUp() override {
    std::vector<double> L(3 * 16);
    for (int j = 0; j < 16; ++j) L[j] = 0.5 * j;                      // top5 = 15..11
    for (int j = 0; j < 16; ++j) L[16 + j] = j < 12 ? 0.1 * j : 2.0;  // 12..15 = 2.0, k-th: one of 0.1*11 ... see below
    L[16 + 11] = 1.9;  // top5: 12,13,14,15 (2.0) + 11 (1.9)
    L[16 + 3] = 2.0;   // now five values of 2.0 at 3,12,13,14,15: 11 drops; ties among 2.0 only matter at the boundary
    L[16 + 4] = 2.0 + 5e-6;  // six candidates within 1e-5 of 2.0: top5 = {4, 3,12,13,14 or 15}
    for (int j = 0; j < 16; ++j) L[32 + j] = j < 3 ? 1.0 + j : 100.0;  // beyond row_end: must not be picked
    logits = Tensor::from_f64(DType::F32, {3, 16}, L);
    c.inputs["logits"] = logits;
    c.inputs["row_starts"] = Tensor::from_f64(DType::I32, {3}, {0, 0, 0});
    c.inputs["row_ends"] = Tensor::from_f64(DType::I32, {3}, {16, 16, 3});
    c.attrs = {{"topk", 5}, {"index_base", "absolute"}};
    expected = Tensor::from_f64(DType::I32, {3, 5}, {15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1});
    ctx.op_case = &c;
    ctx.output_name = "topk_indices";
  }
  Verdict run(const std::vector<double>& a) {
    return compare(Tensor::from_f64(DType::I32, {3, 5}, a), expected, parse_policy("topk-set", {{"tie_tol", 1e-5}}), ctx);
  }
  Tensor logits, expected;
  OpCase c;
  CompareContext ctx;
};

}  // namespace

TEST_F(TopkFixture, PermutedWithoutTiesPasses) {
  Verdict v = run({11, 13, 15, 12, 14, 14, 12, 4, 3, 13, 2, 0, 1, -1, -1});
  EXPECT_TRUE(v.pass) << v.failed;
}

TEST_F(TopkFixture, TieSwapWithinToleranceAndPermutedPasses) {
  // Row 1: 15 instead of 14 (both 2.0, the k-th value) and shuffled.
  Verdict v = run({15, 14, 13, 12, 11, 15, 13, 3, 4, 12, 1, 2, 0, -1, -1});
  EXPECT_TRUE(v.pass) << v.failed << " " << (v.worst.empty() ? "" : v.worst[0].note);
}

TEST_F(TopkFixture, NonTieSubstitutionFails) {
  // Row 0: 10 (logit 5.0) instead of 11 (5.5): not a tie. Row 1 correct.
  Verdict v = run({15, 14, 13, 12, 10, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1});
  EXPECT_FALSE(v.pass);
  // The intruder fails; the missing 11 is the k-th value itself (a tie with itself), so the
  // intruder is where the error shows.
  EXPECT_EQ(v.counts["index_set"], 1);
  EXPECT_NE(v.worst[0].note.find("index 10 (logit 5)"), std::string::npos) << v.worst[0].note;
  // A dropped value above the k-th (15, logit 7.5) is flagged at its expected slot.
  Verdict m = run({14, 13, 12, 11, 10, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1});
  EXPECT_FALSE(m.pass);
  bool saw_missing = false;
  for (auto& w : m.worst) saw_missing |= w.note.find("expected index 15 (logit 7.5) missing") != std::string::npos;
  EXPECT_TRUE(saw_missing);
  EXPECT_EQ(v.where.rows, (std::vector<std::int64_t>{0}));
  // Row 1: 11 (logit 1.9) instead of a 2.0: beyond the 1e-5 tie tolerance.
  Verdict w = run({15, 14, 13, 12, 11, 4, 3, 12, 13, 11, 0, 1, 2, -1, -1});
  EXPECT_FALSE(w.pass);
  EXPECT_EQ(w.where.rows, (std::vector<std::int64_t>{1}));
}

TEST_F(TopkFixture, PermutedTopkWithTiesButTooLooseValueFails) {
  // Row 1 with logits of the tie group spread by 1e-4 > tie_tol: the swap must now fail.
  logits.set({1, 15}, 2.0 - 1e-4);
  c.inputs["logits"] = logits;
  Verdict v = run({15, 14, 13, 12, 11, 15, 13, 3, 4, 12, 0, 1, 2, -1, -1});
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.where.rows, (std::vector<std::int64_t>{1}));
}

TEST_F(TopkFixture, PaddingDuplicatesRangeAndUnwrittenFail) {
  // Row 2 picks index 5 (logit 100, beyond row_end 3) instead of padding.
  EXPECT_FALSE(run({15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 2, 5, -1}).pass);
  // Row 2 drops index 2 for -1: padding count mismatch.
  Verdict p = run({15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, -1, -1, -1});
  EXPECT_FALSE(p.pass);
  // Duplicate index.
  EXPECT_FALSE(run({15, 15, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1}).pass);
  // Unwritten slot (poisoned).
  Tensor a = Tensor::empty(DType::I32, {3, 5});
  poison(a);
  std::vector<double> ok = {15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1};
  for (int i = 0; i < 15; ++i) if (i != 7) a.set_linear(i, ok[i]);
  ctx.poison = PoisonPattern::primary;
  Verdict u = compare(a, expected, parse_policy("topk-set", Json::object()), ctx);
  EXPECT_FALSE(u.pass);
  EXPECT_EQ(u.counts["unwritten"], 1);
  EXPECT_EQ(u.worst[0].index, (std::vector<std::int64_t>{1, 2}));
}

TEST_F(TopkFixture, RowRelativeIndexBaseAndMissingLogits) {
  c.attrs["index_base"] = "row_relative";
  c.inputs["row_starts"] = Tensor::from_f64(DType::I32, {3}, {1, 0, 0});
  // Row 0 relative to start 1: absolute 15..11 are relative 14..10.
  expected = Tensor::from_f64(DType::I32, {3, 5}, {14, 13, 12, 11, 10, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1});
  EXPECT_TRUE(run({10, 11, 12, 13, 14, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1}).pass);
  EXPECT_FALSE(run({9, 11, 12, 13, 14, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1}).pass);
  OpCase empty;
  ctx.op_case = &empty;
  EXPECT_THROW(run({15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 2, -1, -1}), InputError);
}

TEST_F(TopkFixture, SelectNegInfMaskedPicksCountButWhichIsFree) {
  c.attrs["masked"] = "select_neg_inf";
  // Row 2 has 3 valid entries (row_ends 3); the other 2 slots hold masked positions (beyond row_end).
  expected = Tensor::from_f64(DType::I32, {3, 5}, {15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 2, 3, 4});
  EXPECT_TRUE(run({15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 2, 9, 0, 1, 7}).pass);   // other masked picks
  EXPECT_FALSE(run({15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 2, 3, -1}).pass);  // one masked pick short
  EXPECT_FALSE(run({15, 14, 13, 12, 11, 4, 3, 12, 13, 14, 0, 1, 5, 3, 4}).pass);   // masked pick replaces valid 2
}
