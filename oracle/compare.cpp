// The value policies (exact, ulp, allclose, error-bound, cosine) and the shared verdict assembly.
// See compare.hpp for the rules common to all policies.
#include "oracle/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "oracle/compare_detail.hpp"

namespace dsv4::oracle {

std::string fail_kind_name(FailKind k) {
  switch (k) {
    case FailKind::none: return "none";
    case FailKind::value: return "value";
    case FailKind::nan_mismatch: return "nan_mismatch";
    case FailKind::inf_mismatch: return "inf_mismatch";
    case FailKind::unwritten: return "unwritten";
    case FailKind::index_set: return "index_set";
  }
  return "?";
}

double ulp_distance(DType t, std::uint64_t a, std::uint64_t e) {
  if (is_integer(t)) {
    auto sx = [&](std::uint64_t c) -> std::int64_t {
      int bits = static_cast<int>(element_size(t)) * 8;
      if (t == DType::U8 || bits == 64) return static_cast<std::int64_t>(c);
      std::uint64_t sign = 1ull << (bits - 1);
      return (c & sign) ? static_cast<std::int64_t>(c) - static_cast<std::int64_t>(sign << 1) : static_cast<std::int64_t>(c);
    };
    return std::fabs(static_cast<double>(sx(a)) - static_cast<double>(sx(e)));
  }
  bool has_sign = true;
  int bits = static_cast<int>(element_size(t)) * 8;
  if (auto f = format_of(t)) {
    has_sign = formats::info(*f).has_sign;
    bits = formats::info(*f).bits();
  }
  // Sign-magnitude codes map to a monotonic integer line: +mag or -mag (so +0 and -0 are both 0).
  auto ord = [&](std::uint64_t c) -> double {
    if (!has_sign) return static_cast<double>(c);
    std::uint64_t sign = 1ull << (bits - 1);
    double mag = static_cast<double>(c & (sign - 1));
    return (c & sign) ? -mag : mag;
  };
  return std::fabs(ord(a) - ord(e));
}

namespace detail {

void check_same_layout(const Tensor& a, const Tensor& e, const std::string& out) {
  std::string name = out.empty() ? "output" : "output '" + out + "'";
  if (!a.defined() || !e.defined()) throw InputError("oracle: " + name + ": actual or expected tensor is undefined");
  if (a.shape() != e.shape())
    throw InputError(fmt::format("oracle: {}: actual shape {} differs from expected shape {}", name,
                                 shape_str(a.shape()), shape_str(e.shape())));
  if (a.dtype() != e.dtype())
    throw InputError(fmt::format("oracle: {}: actual dtype {} differs from expected dtype {}", name,
                                 dtype_name(a.dtype()), dtype_name(e.dtype())));
}

std::vector<std::int64_t> unravel(const Shape& s, std::int64_t li) {
  std::vector<std::int64_t> idx(s.size());
  for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
    idx[d] = s[d] ? li % s[d] : 0;
    li = s[d] ? li / s[d] : 0;
  }
  return idx;
}

void finish(Verdict& v, const ElementResults& r, const std::vector<double>& a, const std::vector<double>& e,
            const Tensor& t, const CompareContext& ctx) {
  const std::int64_t n = static_cast<std::int64_t>(r.kind.size());
  v.output = ctx.output_name;
  v.rationale = ctx.rationale;
  v.checked = n;
  for (auto k : {FailKind::value, FailKind::nan_mismatch, FailKind::inf_mismatch, FailKind::unwritten, FailKind::index_set})
    v.counts[fail_kind_name(k)] = 0;
  View2D vw = view_2d(t.shape(), ctx.tiles ? ctx.tiles->row_dims : -1);
  v.map.rows = vw.rows;
  v.map.cols = vw.cols;
  v.map.ratio.assign(static_cast<std::size_t>(n), 0.f);
  v.map.kind.assign(static_cast<std::size_t>(n), 0);
  double max_ratio = 0;
  std::vector<std::pair<double, std::int64_t>> ranked;
  for (std::int64_t i = 0; i < n; ++i) {
    double err = r.error[i], bnd = r.bound[i];
    double ratio = (r.kind[i] == FailKind::value || r.kind[i] == FailKind::none)
                       ? (bnd > 0 ? err / bnd : (err > 0 ? std::numeric_limits<double>::infinity() : 0.0))
                       : std::numeric_limits<double>::infinity();
    if (std::isnan(ratio)) ratio = std::numeric_limits<double>::infinity();
    v.map.ratio[i] = static_cast<float>(ratio);
    v.map.kind[i] = static_cast<std::uint8_t>(r.kind[i]);
    if (r.kind[i] == FailKind::none) {
      if (std::isfinite(ratio)) max_ratio = std::max(max_ratio, ratio);
      continue;
    }
    ++v.counts[fail_kind_name(r.kind[i])];
    v.failing.push_back(i);
    ranked.push_back({ratio, i});
    if (std::isfinite(ratio)) max_ratio = std::max(max_ratio, ratio);
  }
  v.failed = static_cast<std::int64_t>(v.failing.size());
  if (!v.metric) {
    v.metric = max_ratio;
    v.metric_name = "max error/bound (finite elements)";
  }
  // Worst elements: failures by error/bound; when nothing failed, the closest calls.
  if (ranked.empty())
    for (std::int64_t i = 0; i < n; ++i) ranked.push_back({v.map.ratio[i], i});
  std::size_t keep = std::min<std::size_t>(ranked.size(), static_cast<std::size_t>(std::max(0, ctx.worst_count)));
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                    [](auto& x, auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
  for (std::size_t k = 0; k < keep; ++k) {
    std::int64_t i = ranked[k].second;
    ElementReport er;
    er.index = unravel(t.shape(), i);
    er.actual = a[i];
    er.expected = e[i];
    er.error = r.error[i];
    er.bound = r.bound[i];
    er.kind = r.kind[i];
    if (!r.note.empty()) er.note = r.note[i];
    v.worst.push_back(er);
  }
  v.where = localise(t.shape(), v.failing, ctx.tiles);
  // Degenerate-output guard: an all-zero result never passes against a reference that is not.
  bool actual_zero = n > 0 && std::all_of(a.begin(), a.end(), [](double x) { return x == 0.0; });
  bool expected_zero = std::all_of(e.begin(), e.end(), [](double x) { return x == 0.0; });
  if (actual_zero && !expected_zero) {
    v.all_zero_flag = true;
    v.notes.push_back("actual output is all zero while the reference is not (degenerate-output guard)");
  }
  v.pass = v.pass && v.failed == 0 && !v.all_zero_flag;
}

}  // namespace detail

namespace {

using detail::ElementResults;

Json effective_params(const Policy& p, DType t) {
  Json j = p.params;
  if (p.kind == PolicyKind::allclose) {
    Tolerance tol = allclose_tolerance(p, t);
    j = Json{{"atol", tol.atol}, {"rtol", tol.rtol}};
    if (!p.atol && !p.by_dtype.contains(std::string(dtype_name(t)))) j["source"] = "PyTorch default for " + std::string(dtype_name(t));
  }
  if (p.kind == PolicyKind::error_bound) j["multiple"] = p.multiple;
  return j;
}

}  // namespace

Verdict compare(const Tensor& actual, const Tensor& expected, const Policy& p, const CompareContext& ctx) {
  detail::check_same_layout(actual, expected, ctx.output_name);
  if (p.kind == PolicyKind::topk_set) return detail::compare_topk_set(actual, expected, p, ctx);
  const DType dt = actual.dtype();
  if (p.kind == PolicyKind::ulp && !is_floating(dt) && !is_integer(dt))
    throw InputError("oracle: ulp policy needs a numeric output");
  if (p.kind == PolicyKind::error_bound) {
    if (!ctx.bound)
      throw InputError(fmt::format("oracle: output '{}': the error-bound policy needs the op's error model (no bound given)",
                                   ctx.output_name));
    if (ctx.bound->shape() != actual.shape())
      throw InputError(fmt::format("oracle: output '{}': error-bound tensor shape {} differs from the output shape {}",
                                   ctx.output_name, shape_str(ctx.bound->shape()), shape_str(actual.shape())));
  }
  const std::int64_t n = actual.numel();
  std::vector<double> a = actual.to_f64(), e = expected.to_f64();
  std::vector<std::uint64_t> ac = actual.to_codes(), ec = expected.to_codes();
  std::vector<double> bnd_in;
  if (ctx.bound) bnd_in = ctx.bound->to_f64();
  std::vector<char> unwritten(static_cast<std::size_t>(n), 0);
  std::int64_t indeterminate = 0;
  if (ctx.poison) {
    WriteCheck w = check_written(actual, *ctx.poison, &expected);
    for (auto i : w.unwritten) unwritten[i] = 1;
    indeterminate = static_cast<std::int64_t>(w.indeterminate.size());
  }
  Tolerance tol = allclose_tolerance(p, dt);
  const bool fl = is_floating(dt);
  bool mask = p.mask_neg_inf;
  if (mask && !p.mask_neg_inf_unless_attr.empty()) {
    if (!ctx.op_case || !ctx.op_case->attrs.is_object() || !ctx.op_case->attrs.contains(p.mask_neg_inf_unless_attr) ||
        !ctx.op_case->attrs[p.mask_neg_inf_unless_attr].is_boolean())
      throw InputError(fmt::format("oracle: output '{}': mask_neg_inf names attribute '{}', which the case does not hold "
                                   "as a boolean", ctx.output_name, p.mask_neg_inf_unless_attr));
    mask = !ctx.op_case->attrs[p.mask_neg_inf_unless_attr].get<bool>();
  }
  std::int64_t masked = 0;

  ElementResults r;
  r.kind.assign(n, FailKind::none);
  r.error.assign(n, 0.0);
  r.bound.assign(n, 0.0);
  std::int64_t nan_pos = 0, inf_pos = 0;
  double sdd = 0, sxy2 = 0;  // cosine: sum (x-y)^2 and sum (x^2 + y^2) over finite matched elements
  for (std::int64_t i = 0; i < n; ++i) {
    double x = a[i], y = e[i];
    if (mask && fl && y == -std::numeric_limits<double>::infinity()) {
      ++masked;  // unspecified by the contract (may even stay unwritten): not compared
      continue;
    }
    if (unwritten[i]) {
      r.kind[i] = FailKind::unwritten;
      r.error[i] = std::numeric_limits<double>::infinity();
      continue;
    }
    if (fl && (std::isnan(x) || std::isnan(y))) {
      if (std::isnan(x) && std::isnan(y)) {
        ++nan_pos;
        if (p.kind == PolicyKind::exact && p.nan_bitwise && ac[i] != ec[i]) r.kind[i] = FailKind::value;
      } else {
        r.kind[i] = FailKind::nan_mismatch;
        r.error[i] = std::numeric_limits<double>::infinity();
      }
      continue;
    }
    if (fl && (std::isinf(x) || std::isinf(y))) {
      if (x == y) ++inf_pos;
      else {
        r.kind[i] = FailKind::inf_mismatch;
        r.error[i] = std::numeric_limits<double>::infinity();
      }
      continue;
    }
    double err = std::fabs(x - y), b = 0;
    bool ok = true;
    switch (p.kind) {
      case PolicyKind::exact:
        ok = ac[i] == ec[i] || (!p.signed_zero && x == 0 && y == 0);
        break;
      case PolicyKind::ulp:
        err = ulp_distance(dt, ac[i], ec[i]);
        b = p.ulp_n;
        ok = err <= b;
        break;
      case PolicyKind::allclose:
        b = tol.atol + tol.rtol * std::fabs(y);
        ok = err <= b;
        break;
      case PolicyKind::error_bound: {
        double B = bnd_in[i];
        if (std::isnan(B) || B < 0)
          throw InputError(fmt::format("oracle: output '{}': the op's error model gave an invalid bound {} at {}",
                                       ctx.output_name, B, shape_str(detail::unravel(actual.shape(), i))));
        b = p.multiple * B;
        ok = err <= b;
        break;
      }
      case PolicyKind::cosine:
        sdd += (x - y) * (x - y);
        sxy2 += x * x + y * y;
        if (p.abs_tol) {  // FlashMLA: abs_err < abs or |a-e|/(|e|+1e-6) < rel
          b = std::max(*p.abs_tol, *p.rel_tol * (std::fabs(y) + 1e-6));
          ok = err == 0 || err < b;
        }
        break;
      case PolicyKind::topk_set: break;
    }
    r.error[i] = err;
    r.bound[i] = b;
    if (!ok) r.kind[i] = FailKind::value;
  }

  Verdict v;
  v.policy = policy_name(p.kind);
  v.params = effective_params(p, dt);
  v.pass = true;
  v.counts["nan_positions_matched"] = nan_pos;
  v.counts["inf_positions_matched"] = inf_pos;
  if (ctx.poison) v.counts["unwritten_indeterminate"] = indeterminate;
  if (mask) v.counts["masked"] = masked;
  if (indeterminate)
    v.notes.push_back(fmt::format("{} poisoned elements sit where the reference expects NaN: written-ness cannot be decided "
                                  "there (the poison is the format's NaN code)", indeterminate));

  if (p.kind == PolicyKind::cosine) {
    // calc_diff = 1 - 2 sum(xy)/sum(x^2+y^2) = sum((x-y)^2)/sum(x^2+y^2), computed in the second,
    // cancellation-free form. Both all zero: 0.
    double diff = sxy2 > 0 ? sdd / sxy2 : 0.0;
    v.metric = diff;
    v.metric_name = "calc_diff (1 - 2*sum(xy)/sum(x^2+y^2))";
    View2D vw = view_2d(actual.shape(), ctx.tiles ? ctx.tiles->row_dims : -1);
    // Per-row calc_diff: the global value dilutes errors confined to a few rows.
    std::vector<std::int64_t> bad_rows;
    for (std::int64_t row = 0; row < vw.rows && p.max_diff; ++row) {
      double d = 0, s = 0;
      for (std::int64_t c = 0; c < vw.cols; ++c) {
        std::int64_t i = row * vw.cols + c;
        if (r.kind[i] != FailKind::none && r.kind[i] != FailKind::value) continue;
        if (!std::isfinite(a[i]) || !std::isfinite(e[i])) continue;
        d += (a[i] - e[i]) * (a[i] - e[i]);
        s += a[i] * a[i] + e[i] * e[i];
      }
      if (s > 0 && d / s > *p.max_diff) bad_rows.push_back(row);
    }
    if (!bad_rows.empty())
      v.notes.push_back(fmt::format("{} row(s) exceed max_diff {} on their own: rows {}{}", bad_rows.size(), *p.max_diff,
                                    compact_ranges(bad_rows), p.per_row ? "" : " (per_row is off: not a failure)"));
    bool global_fail = p.max_diff && diff > *p.max_diff;
    std::vector<char> row_fail(static_cast<std::size_t>(vw.rows), 0);
    if (p.per_row) for (auto row : bad_rows) row_fail[row] = 1;
    if (global_fail || p.per_row) {
      // Mark elements whose share of sum (x-y)^2 exceeds their fair share 1/n of the allowed diff.
      double fair = p.max_diff ? *p.max_diff * sxy2 / static_cast<double>(std::max<std::int64_t>(n, 1)) : 0;
      for (std::int64_t i = 0; i < n; ++i) {
        if (r.kind[i] != FailKind::none || !(global_fail || row_fail[i / vw.cols])) continue;
        double contrib = r.error[i] * r.error[i];
        if (!p.abs_tol) r.bound[i] = std::sqrt(fair);
        if (contrib > fair) r.kind[i] = FailKind::value;
      }
      if (global_fail || (p.per_row && !bad_rows.empty())) v.pass = false;
    } else if (!p.abs_tol) {
      double fair = p.max_diff ? *p.max_diff * sxy2 / static_cast<double>(std::max<std::int64_t>(n, 1)) : 0;
      for (std::int64_t i = 0; i < n; ++i) r.bound[i] = std::sqrt(fair);
    }
    if (global_fail)
      v.notes.push_back(fmt::format("global calc_diff {:.3g} > max_diff {}", diff, *p.max_diff));
  }
  detail::finish(v, r, a, e, actual, ctx);
  return v;
}

}  // namespace dsv4::oracle
