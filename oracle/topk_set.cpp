// The topk-set policy (vLLM's set comparison, ops.md §5): per row, the actual index set must equal
// the expected one except for ties: an index present on one side only must have a logit within
// tie_tol of the row's k-th value (the smallest expected logit). -1 padding must match in count and
// position class (slot holds -1 on both sides or on neither), indices must be distinct and, when the
// case has row_starts/row_ends, lie in [row_start, row_end). index_base "row_relative" (an op
// attribute) means index i of row r addresses logits column row_starts[r] + i. With the op attribute
// masked = "select_neg_inf" (torch.topk demo), rows short of valid entries hold masked positions
// (any column of [0, C) outside the row's finite valid set L) instead of -1: their number must
// match, which ones is free, and the tie rule applies to the entries in L only.
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "oracle/compare_detail.hpp"

namespace dsv4::oracle::detail {

Verdict compare_topk_set(const Tensor& actual, const Tensor& expected, const Policy& p, const CompareContext& ctx) {
  if (!is_integer(actual.dtype()))
    throw InputError(fmt::format("oracle: output '{}': topk-set needs an integer index tensor, got {}", ctx.output_name,
                                 dtype_name(actual.dtype())));
  if (actual.dim() != 2)
    throw InputError(fmt::format("oracle: output '{}': topk-set needs a [rows, topk] tensor, got {}", ctx.output_name,
                                 shape_str(actual.shape())));
  if (!ctx.op_case || !ctx.op_case->has(p.logits_input))
    throw InputError(fmt::format("oracle: output '{}': topk-set needs the '{}' input of the case to judge ties",
                                 ctx.output_name, p.logits_input));
  const Tensor& logits = ctx.op_case->in(p.logits_input);
  const std::int64_t R = actual.size(0), K = actual.size(1);
  if (logits.dim() != 2 || logits.size(0) != R)
    throw InputError(fmt::format("oracle: output '{}': logits {} must be [{}, C]", ctx.output_name,
                                 shape_str(logits.shape()), R));
  const std::int64_t C = logits.size(1);
  const bool relative = ctx.op_case->attrs.is_object() && ctx.op_case->attrs.value("index_base", "") == "row_relative";
  const Tensor* starts = ctx.op_case->has("row_starts") ? &ctx.op_case->in("row_starts") : nullptr;
  const Tensor* ends = ctx.op_case->has("row_ends") ? &ctx.op_case->in("row_ends") : nullptr;
  if (relative && !starts) throw InputError("oracle: topk-set: index_base row_relative needs the row_starts input");
  const bool select_masked = ctx.op_case->attrs.is_object() && ctx.op_case->attrs.value("masked", "") == "select_neg_inf";

  std::vector<double> a = actual.to_f64(), e = expected.to_f64();
  const std::int64_t n = R * K;
  ElementResults r;
  r.kind.assign(n, FailKind::none);
  r.error.assign(n, 0.0);
  r.bound.assign(n, p.tie_tol);
  r.note.assign(n, "");
  std::vector<char> unwritten(static_cast<std::size_t>(n), 0);
  if (ctx.poison)
    for (auto i : check_written(actual, *ctx.poison, &expected).unwritten) unwritten[i] = 1;
  auto fail = [&](std::int64_t i, FailKind k, double err, std::string note) {
    if (r.kind[i] == FailKind::none) r.kind[i] = k;
    r.error[i] = std::max(r.error[i], err);
    r.note[i] += (r.note[i].empty() ? "" : "; ") + note;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (std::int64_t row = 0; row < R; ++row) {
    std::int64_t base = relative ? static_cast<std::int64_t>(starts->get({row})) : 0;
    auto logit = [&](std::int64_t idx) { return logits.get({row, base + idx}); };
    auto in_row = [&](std::int64_t idx) {
      std::int64_t col = base + idx;
      if (col < 0 || col >= C) return false;
      if (starts && col < static_cast<std::int64_t>(starts->get({row}))) return false;
      if (ends && col >= static_cast<std::int64_t>(ends->get({row}))) return false;
      return true;
    };
    // A masked pick (select_neg_inf only): a column of [0, C) outside the finite valid set.
    auto masked_pick = [&](std::int64_t idx) {
      std::int64_t col = base + idx;
      return select_masked && col >= 0 && col < C && (!in_row(idx) || logit(idx) == -inf);
    };
    auto valid = [&](std::int64_t idx) { return in_row(idx) && !masked_pick(idx); };
    std::int64_t e_masked = 0, a_masked = 0;
    std::map<std::int64_t, std::int64_t> E;  // expected index -> slot
    double kth = inf;
    for (std::int64_t j = 0; j < K; ++j) {
      auto idx = static_cast<std::int64_t>(e[row * K + j]);
      if (idx == -1) continue;
      if (masked_pick(idx)) {
        ++e_masked;
        continue;
      }
      if (!valid(idx))
        throw InputError(fmt::format("oracle: topk-set: expected index {} at [{}, {}] is not a valid column", idx, row, j));
      E[idx] = j;
      kth = std::min(kth, logit(idx));
    }
    std::set<std::int64_t> A;
    for (std::int64_t j = 0; j < K; ++j) {
      std::int64_t i = row * K + j;
      if (unwritten[i]) {
        fail(i, FailKind::unwritten, inf, "slot never written");
        continue;
      }
      auto idx = static_cast<std::int64_t>(a[i]);
      if (idx == -1) continue;  // padding is checked per row below
      if (masked_pick(idx)) {
        if (!A.insert(idx).second) fail(i, FailKind::index_set, inf, fmt::format("index {} repeated", idx));
        ++a_masked;
        continue;
      }
      if (!valid(idx)) {
        fail(i, FailKind::index_set, inf, fmt::format("index {} is out of the row's valid range", idx));
        continue;
      }
      if (!A.insert(idx).second) {
        fail(i, FailKind::index_set, inf, fmt::format("index {} repeated", idx));
        continue;
      }
      if (E.count(idx)) continue;
      double v = logit(idx);
      double d = (v == kth) ? 0.0 : std::fabs(v - kth);
      if (E.empty() || !(d <= p.tie_tol))
        fail(i, FailKind::index_set, E.empty() ? inf : d,
             fmt::format("index {} (logit {:.9g}) not in expected set; k-th value {:.9g}", idx, v, kth));
    }
    // Padding: the number of -1 slots must match.
    std::int64_t a_pad = 0, e_pad = 0;
    for (std::int64_t j = 0; j < K; ++j) {
      a_pad += static_cast<std::int64_t>(a[row * K + j]) == -1;
      e_pad += static_cast<std::int64_t>(e[row * K + j]) == -1;
    }
    if (a_pad != e_pad)
      for (std::int64_t j = 0; j < K; ++j) {
        std::int64_t i = row * K + j;
        bool ap = static_cast<std::int64_t>(a[i]) == -1, ep = static_cast<std::int64_t>(e[i]) == -1;
        if (ap != ep) fail(i, FailKind::index_set, inf, fmt::format("-1 padding mismatch ({} vs {} padded slots in row)", a_pad, e_pad));
      }
    if (a_masked != e_masked)
      for (std::int64_t j = 0; j < K; ++j) {
        std::int64_t i = row * K + j;
        auto idx = static_cast<std::int64_t>(a[i]);
        if (idx != -1 && masked_pick(idx))
          fail(i, FailKind::index_set, inf, fmt::format("{} masked picks in row, expected {}", a_masked, e_masked));
      }
    // Expected indices the actual row lacks must be ties too.
    for (auto& [idx, j] : E) {
      if (A.count(idx)) continue;
      if (a_masked > e_masked) {  // an actual masked pick took the place of a valid entry
        fail(row * K + j, FailKind::index_set, inf, fmt::format("expected index {} missing (replaced by a masked pick)", idx));
        continue;
      }
      double v = logit(idx);
      double d = (v == kth) ? 0.0 : std::fabs(v - kth);
      if (!(d <= p.tie_tol))
        fail(row * K + j, FailKind::index_set, d,
             fmt::format("expected index {} (logit {:.9g}) missing; k-th value {:.9g}", idx, v, kth));
    }
  }
  Verdict v;
  v.policy = policy_name(p.kind);
  v.params = Json{{"tie_tol", p.tie_tol}, {"logits_input", p.logits_input}};
  v.pass = true;
  finish(v, r, a, e, actual, ctx);
  // The all-zero guard is about values; an index output of zeros is judged by the set rules above.
  if (v.all_zero_flag && v.failed == 0) {
    v.all_zero_flag = false;
    v.notes.clear();
    v.pass = true;
  }
  return v;
}

}  // namespace dsv4::oracle::detail
