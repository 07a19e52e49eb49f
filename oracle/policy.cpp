// Policy parsing and validation; the PyTorch default tolerance table. See policy.hpp.
#include "oracle/policy.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

namespace dsv4::oracle {

std::string policy_name(PolicyKind k) {
  switch (k) {
    case PolicyKind::exact: return "exact";
    case PolicyKind::ulp: return "ulp";
    case PolicyKind::allclose: return "allclose";
    case PolicyKind::error_bound: return "error-bound";
    case PolicyKind::cosine: return "cosine";
    case PolicyKind::topk_set: return "topk-set";
  }
  return "?";
}

namespace {

struct Reader {
  const std::string& policy;
  const Json& params;

  void only(std::initializer_list<const char*> allowed) const {
    std::set<std::string> ok(allowed.begin(), allowed.end());
    for (auto it = params.begin(); it != params.end(); ++it)
      if (!ok.count(it.key())) {
        std::string known;
        for (auto& k : ok) known += (known.empty() ? "" : ", ") + k;
        throw InputError(fmt::format("oracle policy '{}': unknown parameter '{}' (known: {})", policy, it.key(),
                                     known.empty() ? "none" : known));
      }
  }
  // A tolerance: a finite, non-negative number.
  std::optional<double> tol(const char* key) const {
    if (!params.contains(key) || params[key].is_null()) return std::nullopt;
    return check_tol(params[key], key);
  }
  double check_tol(const Json& v, const std::string& key) const {
    if (!v.is_number())
      throw InputError(fmt::format("oracle policy '{}': parameter '{}' must be a number, got {}", policy, key, v.dump()));
    double x = v.get<double>();
    if (std::isnan(x) || x < 0 || std::isinf(x))
      throw InputError(fmt::format("oracle policy '{}': parameter '{}' must be finite and >= 0, got {}", policy, key,
                                   v.dump()));
    return x;
  }
  bool flag(const char* key, bool dflt) const {
    if (!params.contains(key)) return dflt;
    if (!params[key].is_boolean())
      throw InputError(fmt::format("oracle policy '{}': parameter '{}' must be true or false, got {}", policy, key,
                                   params[key].dump()));
    return params[key].get<bool>();
  }
};

}  // namespace

namespace {
void read_mask(const Reader& r, Policy& p) {
  if (!r.params.contains("mask_neg_inf")) return;
  const Json& v = r.params["mask_neg_inf"];
  if (v.is_boolean()) p.mask_neg_inf = v.get<bool>();
  else if (v.is_string() && !v.get<std::string>().empty()) p.mask_neg_inf = true, p.mask_neg_inf_unless_attr = v.get<std::string>();
  else
    throw InputError(fmt::format("oracle policy '{}': 'mask_neg_inf' must be true/false or a boolean attribute name, got {}",
                                 r.policy, v.dump()));
}
}  // namespace

Policy parse_policy(const std::string& name, const Json& params_in) {
  Json params = params_in.is_null() ? Json::object() : params_in;
  if (!params.is_object())
    throw InputError(fmt::format("oracle policy '{}': parameters must be a JSON object, got {}", name, params.dump()));
  Policy p;
  p.params = params;
  Reader r{name, params};
  if (name == "exact") {
    p.kind = PolicyKind::exact;
    r.only({"nan_bitwise", "signed_zero", "mask_neg_inf"});
    read_mask(r, p);
    p.nan_bitwise = r.flag("nan_bitwise", false);
    p.signed_zero = r.flag("signed_zero", true);
  } else if (name == "ulp") {
    p.kind = PolicyKind::ulp;
    r.only({"n", "mask_neg_inf"});
    read_mask(r, p);
    auto n = r.tol("n");
    if (!n) throw InputError("oracle policy 'ulp': parameter 'n' (the admitted ulp distance) is required");
    if (*n != std::floor(*n)) throw InputError(fmt::format("oracle policy 'ulp': parameter 'n' must be an integer, got {}", *n));
    p.ulp_n = *n;
  } else if (name == "allclose") {
    p.kind = PolicyKind::allclose;
    r.only({"atol", "rtol", "by_dtype", "mask_neg_inf"});
    read_mask(r, p);
    p.atol = r.tol("atol");
    p.rtol = r.tol("rtol");
    if (p.atol.has_value() != p.rtol.has_value())
      throw InputError("oracle policy 'allclose': 'atol' and 'rtol' must be given together (as in torch.testing)");
    if (params.contains("by_dtype")) {
      const Json& bd = params["by_dtype"];
      if (!bd.is_object()) throw InputError("oracle policy 'allclose': 'by_dtype' must be an object of dtype -> {atol, rtol}");
      for (auto it = bd.begin(); it != bd.end(); ++it) {
        if (!parse_dtype(it.key()))
          throw InputError(fmt::format("oracle policy 'allclose': 'by_dtype' names unknown dtype '{}'", it.key()));
        if (!it->is_object() || !it->contains("atol") || !it->contains("rtol") || it->size() != 2)
          throw InputError(fmt::format("oracle policy 'allclose': by_dtype['{}'] must be exactly {{atol, rtol}}", it.key()));
        r.check_tol((*it)["atol"], "by_dtype." + it.key() + ".atol");
        r.check_tol((*it)["rtol"], "by_dtype." + it.key() + ".rtol");
      }
      p.by_dtype = bd;
    }
  } else if (name == "error-bound") {
    p.kind = PolicyKind::error_bound;
    r.only({"multiple", "mask_neg_inf"});
    read_mask(r, p);
    p.multiple = r.tol("multiple").value_or(1.0);
    if (p.multiple <= 0) throw InputError("oracle policy 'error-bound': parameter 'multiple' must be > 0");
  } else if (name == "cosine" || name == "calc_diff") {
    p.kind = PolicyKind::cosine;
    r.only({"max_diff", "abs", "rel", "per_row", "mask_neg_inf"});
    read_mask(r, p);
    p.max_diff = r.tol("max_diff");
    p.abs_tol = r.tol("abs");
    p.rel_tol = r.tol("rel");
    p.per_row = r.flag("per_row", false);
    if (p.abs_tol.has_value() != p.rel_tol.has_value())
      throw InputError("oracle policy 'cosine': 'abs' and 'rel' (FlashMLA per-element check) must be given together");
    if (!p.max_diff && !p.abs_tol)
      throw InputError("oracle policy 'cosine': parameter 'max_diff' is required (or 'abs' and 'rel')");
  } else if (name == "topk-set") {
    p.kind = PolicyKind::topk_set;
    r.only({"tie_tol", "logits_input"});
    p.tie_tol = r.tol("tie_tol").value_or(1e-5);
    if (params.contains("logits_input")) {
      if (!params["logits_input"].is_string())
        throw InputError("oracle policy 'topk-set': 'logits_input' must be an input name (string)");
      p.logits_input = params["logits_input"].get<std::string>();
    }
  } else {
    throw InputError(fmt::format(
        "unknown oracle policy '{}' (known: exact, ulp, allclose, error-bound, cosine, calc_diff, topk-set)", name));
  }
  return p;
}

Tolerance default_allclose(DType t) {
  switch (t) {
    case DType::F16: return {1e-5, 1e-3};
    case DType::BF16: return {1e-5, 1.6e-2};
    case DType::F32: return {1e-5, 1.3e-6};
    case DType::F64: return {1e-7, 1e-7};
    default: break;
  }
  if (is_integer(t)) return {0, 0};
  if (auto f = format_of(t)) {
    const auto& fi = formats::info(*f);
    double rtol = std::ldexp(1.0, -fi.mantissa_bits);
    int min_exp = (fi.kind == formats::SpecialKind::e8m0) ? -fi.bias : 1 - fi.bias - fi.mantissa_bits;
    return {std::ldexp(1.0, min_exp), rtol};
  }
  return {0, 0};
}

Tolerance allclose_tolerance(const Policy& p, DType t) {
  std::string dn(dtype_name(t));
  if (p.by_dtype.contains(dn)) return {p.by_dtype[dn]["atol"].get<double>(), p.by_dtype[dn]["rtol"].get<double>()};
  if (p.atol && p.rtol) return {*p.atol, *p.rtol};
  return default_allclose(t);
}

}  // namespace dsv4::oracle
