// The lightning-indexer score shared by `indexer_logits` and `indexer_logits_paged` (ops.md §4):
//   logit[j] = Σ_h relu(dot(q_h, k_j)·sf_j)·w_h,
// in float64 on dequantized values. Variant dot:bf16 (vLLM's torch reference) rounds each q·k dot to
// bf16 before the scale; dot:fp32 (DeepGEMM, default) keeps it exact. sf_j ≥ 0 is a precondition
// (the kernels apply sf after the ReLU, which only commutes for sf ≥ 0).
#pragma once
#include <string>

#include "reference/ops/common/gemm_matrix.hpp"

namespace dsv4::ops::indexer {

enum class Dot { fp32, bf16 };
Dot parse_dot(const std::string& s);  // "fp32" | "bf16"

// Scores of one query (Q: H×D) against keys K (n×D) with scales sf[0..n) and head weights w[0..H):
// writes n values to out.
void score_row(const Eigen::Ref<const gemm::MatD>& Q, const Eigen::Ref<const gemm::MatD>& K, const double* sf, const double* w, Dot dot, double* out);

}  // namespace dsv4::ops::indexer
