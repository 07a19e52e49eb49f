// Per-element error bound of a block-scaled fp8 GEMM kernel against the float64 reference, as derived in
// reference/ops/fp8_gemm_blockscaled/error_model.md (fp32 two-level accumulation, one output rounding):
//   B[m,n] = Σ_kb S·(γ^mma_128·Σ_{k∈kb}|x·w| + 2u·|P_kb|) + γ_{KB+1}·(Σ_kb |S·P_kb| + |c|) + underflow
//            + ulp_out(|d| + that),   S = |x_sf[m,kb]·w_sf[n/row_block,kb]|, P_kb = Σ_{k∈kb} x·w.
// Non-finite terms (NaN/Inf scales or inputs) give +Inf (the oracle checks NaN/Inf placement first).
#pragma once
#include <cstdint>

#include "reference/ops/common/gemm_matrix.hpp"

namespace dsv4::gemm {

// x [M,K] fp8 with x_sf (row block 1), w [N,K] fp8 with w_sf (row block w_row_block), c [M,N] F32 or nullptr;
// out: dtype of d (BF16 or F32). u_mma: unit roundoff of the per-block accumulation (2^-24 for fp32 FMA/MFMA).
MatD blockscaled_error_bound(const Tensor& x, const Tensor& x_sf, const Tensor& w, const Tensor& w_sf,
                             std::int64_t w_row_block, const Tensor* c, DType out, double u_mma);

}  // namespace dsv4::gemm
