// Oracle policies: a policy is a name plus JSON parameters, parsed and validated once into Policy.
// Names: exact, ulp, allclose, error-bound, cosine (alias calc_diff), topk-set. Unknown names,
// unknown parameter keys, wrong JSON types and tolerances that are negative or NaN are InputErrors
// naming the policy and the parameter: a malformed policy can never silently pass.
#pragma once
#include <optional>
#include <string>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::oracle {

enum class PolicyKind { exact, ulp, allclose, error_bound, cosine, topk_set };

std::string policy_name(PolicyKind k);

struct Policy {
  PolicyKind kind = PolicyKind::exact;
  Json params = Json::object();  // the parameters as given (for reports)

  // exact: NaN-class rule (any NaN matches any NaN unless nan_bitwise), signed zeros distinct
  // unless signed_zero == false.
  bool nan_bitwise = false;
  bool signed_zero = true;
  // ulp: the largest admitted distance in units in the last place of the output's format.
  double ulp_n = 0;
  // allclose (PyTorch assert_close): |a-e| <= atol + rtol*|e|. Absent atol/rtol = PyTorch's default
  // for the output dtype (see default_allclose); "by_dtype" {"BF16": {"atol":..,"rtol":..}} selects
  // per output dtype (ops.md tolerance tables are per dtype).
  std::optional<double> atol, rtol;
  Json by_dtype = Json::object();
  // error-bound: |a-e| <= multiple * bound[i], bound from the op's error model.
  double multiple = 1.0;
  // cosine / calc_diff: global 1 - 2 sum(xy) / sum(x^2 + y^2) <= max_diff (DeepGEMM); optional
  // FlashMLA check_is_allclose per-element part: abs_err < abs or |a-e|/(|e|+1e-6) < rel.
  // per_row: also require every row's calc_diff <= max_diff (catches errors diluted globally).
  std::optional<double> max_diff, abs_tol, rel_tol;
  bool per_row = false;
  // Every value policy: "mask_neg_inf": true leaves positions where the reference is -inf uncompared
  // (the contract leaves them unspecified, e.g. paged logits beyond context_len); a string names a
  // boolean op attribute: mask unless that attribute is true (indexer_logits' clean_logits). Masked
  // positions are counted in the verdict ("masked").
  bool mask_neg_inf = false;
  std::string mask_neg_inf_unless_attr;
  // topk-set: differing indices must have logits within tie_tol of the row's k-th value.
  double tie_tol = 1e-5;
  std::string logits_input = "logits";
};

// Parses a policy name and its JSON parameters (an object, or null for none). Throws InputError.
Policy parse_policy(const std::string& name, const Json& params);
inline Policy parse_policy(const OracleSpec& s) { return parse_policy(s.policy, s.params); }

// PyTorch torch.testing default (rtol, atol) for a dtype: fp16 (1e-3, 1e-5), bf16 (1.6e-2, 1e-5),
// fp32 (1.3e-6, 1e-5), fp64 (1e-7, 1e-7), integers (0, 0). PyTorch has no entry for fp8/e8m0;
// dsv4check extends the table with rtol = one ulp at 1.0 of the format (2^-mantissa_bits) and
// atol = the format's smallest subnormal (so rounding of the output alone always passes).
struct Tolerance { double atol, rtol; };
Tolerance default_allclose(DType t);

// The (atol, rtol) the allclose policy applies to an output of dtype t.
Tolerance allclose_tolerance(const Policy& p, DType t);

}  // namespace dsv4::oracle
