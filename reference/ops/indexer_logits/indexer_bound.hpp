// Per-element error bound of indexer kernels (indexer_logits, indexer_logits_paged) against the float64 reference,
// the bound of reference/ops/indexer_logits/error_model.md, shared by the ops' OpDescriptor::error_bound and the
// kernel tests (tests/kernels/indexer_logits/). For one query (q: H×D, weights w) and one key (k: D, scale sf >= 0):
//   e_h   = γ_D·Σ_d |q_hd·k_d|                       (fp32 D-reduction in any order; fp8 products are exact)
//           + ulp_bf16(|dot_h| + γ_D·Σ_d|q·k|)        (dot=bf16 only: the kernel's and the reference's bf16
//                                                      roundings of the dot may land one bf16 step apart)
//   B     = sf·Σ_h |w_h|·e_h + γ_{H+1}·Σ_h (relu(dot'_h·sf) + sf·e_h)·|w_h|   (head sum in any order, the
//           products rounded once; dot' the reference's dot, bf16-rounded for dot=bf16)
//           + u·(|exact| + that) (the sf multiply) + (H+2)·2^-149 (fp32 underflow)
//   bound = B + ulp_f32(|exact| + B)   (the kernel's output rounding plus the reference's own fp32 rounding: the
//           bound holds against the exact value and against the reference's fp32 output alike).
// Non-finite inputs give +Inf (the oracle checks NaN/Inf placement before it reads a bound).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "reference/ops/indexer_logits/indexer_core.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops::indexer {

struct ScoreBound {
  double exact = 0;  // the reference's score before its fp32 rounding: Σ_h relu(dot'_h·sf)·w_h
  double bound = 0;  // bound on |kernel output − exact| and on |kernel output − reference output|
};

// One key's score and bound: q holds H·D values (head-major), k D values, w H values.
ScoreBound score_bound(const double* q, const double* k, std::int64_t H, std::int64_t D, double sf, const double* w,
                       Dot dot);

// OpDescriptor::error_bound of the two ops: an F64 tensor shaped like "logits" holding the bound at every position
// the reference scores, 0 elsewhere (those positions are −inf in the reference: matched exactly or masked). The case
// is validated by the op's reference first (same InputError on bad arguments).
std::map<std::string, Tensor> indexer_logits_error_bound(const OpCase& c, const Outputs& expected);
std::map<std::string, Tensor> indexer_logits_paged_error_bound(const OpCase& c, const Outputs& expected);

}  // namespace dsv4::ops::indexer
