// topk reference and set checker; see topk.hpp. Rows are independent: OpenMP across rows.
#include "reference/ops/topk/topk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_set>

#include <fmt/format.h>

#include "reference/ops/common/checks.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "topk";

struct RowRange {
  std::int64_t start, end;
};

// Validates logits/row_starts/row_ends; returns per-row ranges. NaN inside a range is a
// precondition violation (ops.md §5).
std::vector<RowRange> check_inputs(const Tensor& logits, const Tensor& rs, const Tensor& re, std::int64_t topk,
                                   const TopkConventions& conv) {
  checks::rank(kOp, "logits", logits, 2, "[R, C]");
  checks::dtype_in(kOp, "logits", logits, {DType::F32});
  const std::int64_t R = logits.size(0), C = logits.size(1);
  checks::rank(kOp, "row_starts", rs, 1, "[R]");
  checks::rank(kOp, "row_ends", re, 1, "[R]");
  checks::dim_eq(kOp, "row_starts", rs, 0, R, "R");
  checks::dim_eq(kOp, "row_ends", re, 0, R, "R");
  checks::require(topk >= 1, kOp, "topk", fmt::format("must be >= 1, got {}", topk));
  checks::require(conv.index_base == "absolute" || conv.index_base == "row_relative", kOp, "index_base",
                  "must be absolute or row_relative");
  checks::require(conv.masked == "minus1" || conv.masked == "select_neg_inf", kOp, "masked",
                  "must be minus1 or select_neg_inf");
  checks::require(!(conv.masked == "select_neg_inf" && conv.index_base == "row_relative"), kOp, "masked",
                  "select_neg_inf (torch.topk over the whole row) requires index_base=absolute");
  std::vector<RowRange> rr(R);
  for (std::int64_t r = 0; r < R; ++r) {
    rr[r] = {static_cast<std::int64_t>(rs.get({r})), static_cast<std::int64_t>(re.get({r}))};
    checks::require(0 <= rr[r].start && rr[r].start <= rr[r].end && rr[r].end <= C, kOp, "row_starts",
                    fmt::format("row {}: need 0 <= row_starts = {} <= row_ends = {} <= C = {}", r, rr[r].start,
                                rr[r].end, C));
    for (std::int64_t j = rr[r].start; j < rr[r].end; ++j)
      checks::require(!std::isnan(logits.get({r, j})), kOp, "logits",
                      fmt::format("NaN at [{}, {}] inside the row range (precondition violation)", r, j));
  }
  return rr;
}

// Valid positions L of a row, sorted by value descending then index ascending.
std::vector<std::int64_t> ranked_valid(const Tensor& logits, std::int64_t r, RowRange rr) {
  std::vector<std::int64_t> L;
  for (std::int64_t j = rr.start; j < rr.end; ++j)
    if (logits.get({r, j}) > -std::numeric_limits<double>::infinity()) L.push_back(j);
  std::stable_sort(L.begin(), L.end(), [&](std::int64_t a, std::int64_t b) { return logits.get({r, a}) > logits.get({r, b}); });
  return L;
}
}  // namespace

Outputs topk_reference(const OpCase& c) {
  const Tensor& logits = c.in("logits");
  const std::int64_t topk = c.attrs.at("topk").get<std::int64_t>();
  TopkConventions conv{c.attrs.at("index_base").get<std::string>(), c.attrs.at("masked").get<std::string>(), 0};
  const auto rr = check_inputs(logits, c.in("row_starts"), c.in("row_ends"), topk, conv);
  const std::int64_t R = logits.size(0), C = logits.size(1);
  Tensor out = Tensor::empty(DType::I32, {R, topk});
  std::int32_t* o = out.ptr<std::int32_t>();
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t r = 0; r < R; ++r) {
    const std::vector<std::int64_t> L = ranked_valid(logits, r, rr[r]);
    const std::int64_t k = std::min<std::int64_t>(topk, static_cast<std::int64_t>(L.size()));
    const std::int64_t base = conv.index_base == "row_relative" ? rr[r].start : 0;
    std::int64_t slot = 0;
    for (; slot < k; ++slot) o[r * topk + slot] = static_cast<std::int32_t>(L[slot] - base);
    if (conv.masked == "select_neg_inf") {
      std::vector<char> in_l(C, 0);
      for (auto j : L) in_l[j] = 1;
      for (std::int64_t j = 0; j < C && slot < topk; ++j)
        if (!in_l[j]) o[r * topk + slot++] = static_cast<std::int32_t>(j);
    }
    for (; slot < topk; ++slot) o[r * topk + slot] = -1;
  }
  return {{"topk_indices", out}};
}

TopkCheck check_topk_set(const Tensor& logits, const Tensor& rs, const Tensor& re, std::int64_t topk,
                         const Tensor& cand, const TopkConventions& conv) {
  const auto rr = check_inputs(logits, rs, re, topk, conv);
  const std::int64_t R = logits.size(0), C = logits.size(1);
  TopkCheck res;
  auto fail = [&](std::int64_t r, std::int64_t slot, std::string why) {
    res = {false, r, slot, fmt::format("row {}{}: {}", r, slot >= 0 ? fmt::format(" slot {}", slot) : "", why)};
    return res;
  };
  if (cand.dim() != 2 || cand.size(0) != R || cand.size(1) != topk)
    return fail(-1, -1, fmt::format("candidate shape {} must be [R, topk] = [{}, {}]", shape_str(cand.shape()), R, topk));
  if (cand.dtype() != DType::I32 && cand.dtype() != DType::I64)
    return fail(-1, -1, fmt::format("candidate dtype {} must be I32 or I64", dtype_name(cand.dtype())));
  const double ninf = -std::numeric_limits<double>::infinity();
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t base = conv.index_base == "row_relative" ? rr[r].start : 0;
    auto valid = [&](std::int64_t j) { return j >= rr[r].start && j < rr[r].end && logits.get({r, j}) > ninf; };
    std::int64_t nL = 0;
    for (std::int64_t j = rr[r].start; j < rr[r].end; ++j) nL += valid(j);
    const std::int64_t want = std::min(topk, nL);
    std::unordered_set<std::int64_t> seen, sel;
    std::int64_t n_masked = 0;
    for (std::int64_t s = 0; s < topk; ++s) {
      const auto v = static_cast<std::int64_t>(cand.get({r, s}));
      if (v == -1) continue;
      const std::int64_t j = v + base;
      if (!seen.insert(j).second) return fail(r, s, fmt::format("duplicate index {}", v));
      if (valid(j)) {
        sel.insert(j);
      } else if (conv.masked == "select_neg_inf" && j >= 0 && j < C) {
        ++n_masked;
      } else {
        return fail(r, s, fmt::format("index {} is not a valid position (row range [{}, {}), logit > −inf){}", v,
                                      rr[r].start, rr[r].end, conv.masked == "minus1" ? "; unused slots must be −1" : ""));
      }
    }
    if (static_cast<std::int64_t>(sel.size()) != want)
      return fail(r, -1, fmt::format("holds {} valid indices, must hold min(topk, |L|) = {}", sel.size(), want));
    if (conv.masked == "select_neg_inf") {
      const std::int64_t want_masked = std::min(topk, C) - want;
      if (n_masked != want_masked)
        return fail(r, -1, fmt::format("select_neg_inf: holds {} masked positions, must hold {}", n_masked, want_masked));
    }
    double min_sel = std::numeric_limits<double>::infinity(), max_rest = ninf;
    std::int64_t arg_rest = -1;
    for (std::int64_t j = rr[r].start; j < rr[r].end; ++j) {
      if (!valid(j)) continue;
      const double x = logits.get({r, j});
      if (sel.count(j)) min_sel = std::min(min_sel, x);
      else if (x > max_rest) max_rest = x, arg_rest = j;
    }
    if (!sel.empty() && arg_rest >= 0 && min_sel < max_rest - conv.tie_tolerance)
      return fail(r, -1, fmt::format("unselected position {} has logit {} > smallest selected logit {}", arg_rest - base,
                                     max_rest, min_sel));
  }
  return res;
}

}  // namespace dsv4::ops
