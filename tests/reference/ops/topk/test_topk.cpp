// Tests of the topk reference and check_topk_set (ops.md §5): hand cases for both masked variants and
// both index bases, the checker accepting the reference and its permutations, rejecting planted wrong
// answers (swapped-out index, missing −1 padding, duplicate, wrong count), tie handling, bad input.
#include <algorithm>
#include <limits>

#include <gtest/gtest.h>

#include "reference/ops/topk/topk.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

constexpr double kNinf = -std::numeric_limits<double>::infinity();

OpCase one_row(std::vector<double> row, int start, int end, std::int64_t topk) {
  OpCase c;
  const auto C = static_cast<std::int64_t>(row.size());
  c.inputs["logits"] = Tensor::from_f64(DType::F32, {1, C}, row);
  c.inputs["row_starts"] = Tensor::from_f64(DType::I32, {1}, {static_cast<double>(start)});
  c.inputs["row_ends"] = Tensor::from_f64(DType::I32, {1}, {static_cast<double>(end)});
  c.attrs["topk"] = topk;
  return c;
}

std::vector<double> row_of(const Tensor& t) { return t.to_f64(); }

TEST(Topk, HandCasesMinus1) {
  const std::vector<double> row{3, 1, kNinf, 5, 2};
  EXPECT_EQ(row_of(run_reference("topk", one_row(row, 0, 5, 3)).at("topk_indices")), (std::vector<double>{3, 0, 4}));
  EXPECT_EQ(row_of(run_reference("topk", one_row(row, 0, 5, 6)).at("topk_indices")),
            (std::vector<double>{3, 0, 4, 1, -1, -1}));
  OpCase c = one_row(row, 1, 5, 3);
  c.attrs["index_base"] = "row_relative";  // valid {1, 3, 4} → relative {0, 2, 3}
  EXPECT_EQ(row_of(run_reference("topk", c).at("topk_indices")), (std::vector<double>{2, 3, 0}));
  EXPECT_EQ(row_of(run_reference("topk", one_row(row, 2, 2, 2)).at("topk_indices")), (std::vector<double>{-1, -1}));
}

TEST(Topk, HandCaseSelectNegInf) {
  OpCase c = one_row({3, 1, kNinf, 5, 2}, 1, 4, 5);  // L = {1, 3}; masked positions 0, 2, 4
  c.attrs["masked"] = "select_neg_inf";
  const Tensor out = run_reference("topk", c).at("topk_indices");
  EXPECT_EQ(row_of(out), (std::vector<double>{3, 1, 0, 2, 4}));
  ops::TopkConventions conv;
  conv.masked = "select_neg_inf";
  EXPECT_TRUE(ops::check_topk_set(c.in("logits"), c.in("row_starts"), c.in("row_ends"), 5, out, conv).ok);
  // The minus1 contract rejects the same answer (masked positions must be −1 slots).
  EXPECT_FALSE(ops::check_topk_set(c.in("logits"), c.in("row_starts"), c.in("row_ends"), 5, out).ok);
}

ops::TopkCheck check(const OpCase& c, const Tensor& cand, ops::TopkConventions conv = {}) {
  return ops::check_topk_set(c.in("logits"), c.in("row_starts"), c.in("row_ends"), c.attrs.at("topk").get<std::int64_t>(),
                             cand, conv);
}

TEST(Topk, CheckerAcceptsReferenceAndPermutationsOnRandomCases) {
  auto rng = test::rng_for_current_test();
  const auto& d = Registry::instance().get("topk");
  for (const Json& shape : {Json{{"R", 8}, {"C", 90}, {"topk", 16}}, Json{{"R", 5}, {"C", 40}, {"topk", 64}}})
    for (const char* base : {"absolute", "row_relative"}) {
      OpCase c = d.generate(rng, shape);
      c.attrs["index_base"] = base;
      Tensor out = run_reference("topk", c).at("topk_indices");
      ops::TopkConventions conv;
      conv.index_base = base;
      const auto res = check(c, out, conv);
      EXPECT_TRUE(res.ok) << res.reason;
      // Independent formulation: the selected values equal the |S| largest valid values (multiset).
      const Tensor& lg = c.in("logits");
      for (std::int64_t r = 0; r < out.size(0); ++r) {
        const auto s = static_cast<std::int64_t>(c.in("row_starts").get({r}));
        const auto e = static_cast<std::int64_t>(c.in("row_ends").get({r}));
        std::vector<double> all, sel;
        for (std::int64_t j = s; j < e; ++j) if (lg.get({r, j}) > kNinf) all.push_back(lg.get({r, j}));
        std::sort(all.rbegin(), all.rend());
        for (std::int64_t k = 0; k < out.size(1); ++k) {
          const double v = out.get({r, k});
          if (v >= 0) sel.push_back(lg.get({r, static_cast<std::int64_t>(v) + (std::string(base) == "row_relative" ? s : 0)}));
        }
        std::sort(sel.rbegin(), sel.rend());
        all.resize(std::min(all.size(), static_cast<std::size_t>(out.size(1))));
        EXPECT_EQ(sel, all) << "row " << r;
      }
      // Reversing each row's slots is still a valid answer (order unspecified).
      Tensor rev = out.clone();
      for (std::int64_t r = 0; r < out.size(0); ++r)
        for (std::int64_t k = 0; k < out.size(1); ++k) rev.set({r, k}, out.get({r, out.size(1) - 1 - k}));
      EXPECT_TRUE(check(c, rev, conv).ok);
    }
}

TEST(Topk, CheckerRejectsPlantedWrongAnswers) {
  OpCase c = one_row({3, 1, kNinf, 5, 2, 0.5}, 0, 6, 7);  // L = {0,1,3,4,5}; answer {3,0,4,1,5,−1,−1}
  const Tensor good = run_reference("topk", c).at("topk_indices");
  ASSERT_TRUE(check(c, good).ok);
  auto planted = [&](std::vector<double> v) { return Tensor::from_f64(DType::I32, {1, 7}, v); };
  EXPECT_FALSE(check(c, planted({3, 0, 4, 1, 5, 2, -1})).ok);  // −inf position instead of −1 padding
  EXPECT_FALSE(check(c, planted({3, 0, 4, 1, 5, 6, -1})).ok);  // out-of-range index instead of −1
  EXPECT_FALSE(check(c, planted({3, 0, 4, 1, 1, -1, -1})).ok);  // duplicate (and one index missing)
  EXPECT_FALSE(check(c, planted({3, 0, 4, 1, -1, -1, -1})).ok);  // too few indices
  c.attrs["topk"] = 3;
  auto planted3 = [&](std::vector<double> v) { return Tensor::from_f64(DType::I32, {1, 3}, v); };
  EXPECT_TRUE(check(c, planted3({4, 3, 0})).ok);
  const auto swapped = check(c, planted3({3, 0, 1}));  // 4 (logit 2) swapped out for 1 (logit 1)
  EXPECT_FALSE(swapped.ok);
  EXPECT_NE(swapped.reason.find("unselected position 4"), std::string::npos) << swapped.reason;
  EXPECT_FALSE(check(c, planted3({3, 3, 0})).ok);  // duplicate
  EXPECT_FALSE(check(c, Tensor::from_f64(DType::I32, {1, 2}, {3, 0})).ok);  // wrong shape
}

TEST(Topk, TiesAcceptEitherChoice) {
  OpCase c = one_row({1, 2, 2, 2, 0}, 0, 5, 2);  // three-way tie at 2 for two slots
  for (std::vector<double> v : {std::vector<double>{1, 2}, {2, 3}, {3, 1}})
    EXPECT_TRUE(check(c, Tensor::from_f64(DType::I32, {1, 2}, v)).ok);
  EXPECT_FALSE(check(c, Tensor::from_f64(DType::I32, {1, 2}, {1, 0})).ok);
  // A near-tie is only accepted with a tolerance (vLLM's 1e-5).
  OpCase n = one_row({1.0, 1.000001, 0}, 0, 3, 1);
  EXPECT_FALSE(check(n, Tensor::from_f64(DType::I32, {1, 1}, {0})).ok);
  ops::TopkConventions tol;
  tol.tie_tolerance = 1e-5;
  EXPECT_TRUE(check(n, Tensor::from_f64(DType::I32, {1, 1}, {0}), tol).ok);
}

TEST(Topk, BadInputNamesArgumentAndRule) {
  auto expect_err = [](OpCase c, const std::string& needle) {
    try {
      run_reference("topk", std::move(c));
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_err(one_row({1, std::nan(""), 2}, 0, 3, 2), "NaN");
  expect_err(one_row({1, 2, 3}, 2, 4, 2), "row_ends = 4 <= C = 3");
  OpCase c = one_row({1, 2, 3}, 0, 3, 2);
  c.attrs["masked"] = "select_neg_inf";
  c.attrs["index_base"] = "row_relative";
  expect_err(c, "requires index_base=absolute");
  c = one_row({1, 2, 3}, 0, 3, 0);
  expect_err(c, "'topk'");
  c = one_row({1, 2, 3}, 0, 3, 2);
  c.attrs["masked"] = "zero";
  expect_err(c, "masked");
}

}  // namespace
}  // namespace dsv4
