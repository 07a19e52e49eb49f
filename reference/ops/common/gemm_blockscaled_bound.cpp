// Error bound of block-scaled fp8 GEMM kernels; see gemm_blockscaled_bound.hpp.
#include "reference/ops/common/gemm_blockscaled_bound.hpp"

#include <cmath>
#include <limits>

#include "reference/ops/common/blas_gemm.hpp"
#include "reference/ops/common/gemm_blockscaled.hpp"
#include "reference/ops/common/quant_scale_layout.hpp"

namespace dsv4::gemm {

namespace {
double gamma(double n, double u) { return n * u >= 1 ? std::numeric_limits<double>::infinity() : n * u / (1 - n * u); }

// Spacing of the output grid at magnitude v (bf16: 8 significant bits, fp32: 24; min normal 2^-126).
double out_ulp(DType t, double v) {
  const int p = t == DType::BF16 ? 8 : 24;
  int e = -126;
  if (v > 0 && std::isfinite(v)) {
    std::frexp(v, &e);
    e = std::max(e - 1, -126);
  }
  return std::ldexp(1.0, e - (p - 1));
}
}  // namespace

MatD blockscaled_error_bound(const Tensor& x, const Tensor& x_sf, const Tensor& w, const Tensor& w_sf,
                             std::int64_t w_row_block, const Tensor* c, DType out, double u_mma) {
  const MatD X = to_matrix(x), W = to_matrix(w);
  const std::int64_t M = X.rows(), N = W.rows(), K = X.cols();
  const std::int64_t KB = ceil_div(K, kScaleGroup);
  const double u = std::ldexp(1.0, -24);
  const double g128 = gamma(static_cast<double>(kScaleGroup), u_mma);
  const double gkb = gamma(static_cast<double>(KB + 1), u);
  MatD per_block = MatD::Zero(M, N), scaled_abs = MatD::Zero(M, N), exact = MatD::Zero(M, N);
  for (std::int64_t kb = 0; kb < KB; ++kb) {
    const std::int64_t k0 = kb * kScaleGroup, kn = std::min(kScaleGroup, K - k0);
    const MatD Xb = X.middleCols(k0, kn), Wb = W.middleCols(k0, kn);
    const MatD P = product_nt(Xb, Wb);
    const MatD A = product_nt(Xb.cwiseAbs(), Wb.cwiseAbs());
    for (std::int64_t m = 0; m < M; ++m) {
      const double sx = quant::scale_at(x_sf, m, kb);
      for (std::int64_t n = 0; n < N; ++n) {
        const double s = sx * quant::scale_at(w_sf, n / w_row_block, kb);
        per_block(m, n) += std::fabs(s) * (g128 * A(m, n) + 2 * u * std::fabs(P(m, n)));
        scaled_abs(m, n) += std::fabs(s * P(m, n));
        exact(m, n) += s * P(m, n);
      }
    }
  }
  const double underflow = static_cast<double>(K + 2 * KB + 2) * std::ldexp(1.0, -149);
  MatD bound(M, N);
  const MatD Cm = c ? to_matrix(*c) : MatD::Zero(M, N);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      const double acc = per_block(m, n) + gkb * (scaled_abs(m, n) + std::fabs(Cm(m, n))) + underflow;
      const double b = acc + out_ulp(out, std::fabs(exact(m, n) + Cm(m, n)) + acc);
      bound(m, n) = std::isfinite(b) ? b : std::numeric_limits<double>::infinity();
    }
  return bound;
}

}  // namespace dsv4::gemm
