// Internal to oracle/: per-element results shared by the policy implementations, and the step that
// turns them into a Verdict (counts, worst elements, localisation, error map, all-zero guard).
#pragma once
#include <vector>

#include "oracle/compare.hpp"

namespace dsv4::oracle::detail {

struct ElementResults {
  std::vector<FailKind> kind;   // per linear element
  std::vector<double> error, bound;
  std::vector<std::string> note;  // optional (topk-set), may be empty
};

// Throws InputError unless actual and expected have the same shape and dtype.
void check_same_layout(const Tensor& actual, const Tensor& expected, const std::string& output);

// Multi-index of a row-major linear index.
std::vector<std::int64_t> unravel(const Shape& s, std::int64_t linear);

// Fills counts, failing, worst, localisation, error map and the all-zero guard. v.pass is AND-ed
// with "no element failed" and "not all zero".
void finish(Verdict& v, const ElementResults& r, const std::vector<double>& actual, const std::vector<double>& expected,
            const Tensor& shape_of, const CompareContext& ctx);

Verdict compare_topk_set(const Tensor& actual, const Tensor& expected, const Policy& p, const CompareContext& ctx);

}  // namespace dsv4::oracle::detail
