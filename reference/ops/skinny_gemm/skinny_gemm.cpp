// skinny_gemm float64 reference and error bound; see skinny_gemm.hpp and error_model.md.
#include "reference/ops/skinny_gemm/skinny_gemm.hpp"

#include <cmath>

#include <fmt/format.h>

#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/blas_gemm.hpp"
#include "reference/ops/common/gemm_panels.hpp"
#include "reference/ops/common/gemm_smallrow.hpp"
#include "reference/ops/common/gemm_store.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "skinny_gemm";

// Bias broadcast as a dense [N, M] double matrix (zero when absent).
gemm::MatD bias_matrix(const OpCase& c, std::int64_t N, std::int64_t M) {
  gemm::MatD r = gemm::MatD::Zero(N, M);
  if (!c.has("bias")) return r;
  const Tensor& bias = c.in("bias");
  gemm::MatD bm;
  if (bias.dim() == 1) {
    const std::vector<double> v = gemm::to_vector(bias);
    bm = Eigen::Map<const gemm::MatD>(v.data(), 1, static_cast<Eigen::Index>(v.size()));
  } else {
    bm = gemm::to_matrix(bias);
  }
  const std::int64_t By = bm.rows();
  for (std::int64_t n = 0; n < N; ++n) r.row(n) = bm.row(n % By);
  return r;
}

// Spacing of the output grid (bf16: 8 significant bits, fp16: 11) at magnitude x.
double out_ulp(DType t, double x) {
  const int p = t == DType::BF16 ? 8 : 11;
  const int emin = t == DType::BF16 ? -126 : -14;
  int e = emin;
  if (x > 0 && std::isfinite(x)) {
    std::frexp(x, &e);
    e = std::max(e - 1, emin);
  }
  return std::ldexp(1.0, e - (p - 1));
}
}  // namespace

void skinny_gemm_check(const OpCase& c) {
  const Tensor& a = c.in("a");
  const Tensor& b = c.in("b");
  checks::rank(kOp, "a", a, 2, "[N, K]");
  checks::rank(kOp, "b", b, 2, "[M, K]");
  checks::dtype_in(kOp, "a", a, {DType::BF16, DType::F16});
  checks::require(b.dtype() == a.dtype(), kOp, "b", "must have the same dtype as a");
  const std::int64_t N = a.size(0), K = a.size(1), M = b.size(0);
  checks::dim_eq(kOp, "b", b, 1, K, "K (a.size(1))");
  checks::require(K % 8 == 0, kOp, "a", fmt::format("K = {} must be a multiple of 8 (precondition K % 8 == 0)", K));
  checks::last_dim_contiguous(kOp, "a", a);
  checks::last_dim_contiguous(kOp, "b", b);
  checks::require(N <= 1 || a.stride(0) >= K, kOp, "a",
                  fmt::format("row stride Kap = {} must be >= K = {}", a.stride(0), K));
  if (c.has("bias")) {
    const Tensor& bias = c.in("bias");
    checks::require(bias.dtype() == a.dtype(), kOp, "bias", "must have the same dtype as a");
    checks::require(bias.dim() == 1 || bias.dim() == 2, kOp, "bias", "must be [M], [N, M] or [1, M]");
    checks::dim_eq(kOp, "bias", bias, bias.dim() - 1, M, "M (b.size(0))");
    if (bias.dim() == 2)
      checks::require(bias.size(0) == N || bias.size(0) == 1, kOp, "bias",
                      fmt::format("2-D bias must be [N, M] or [1, M], got dim 0 = {} with N = {}", bias.size(0), N));
  }
}

Outputs skinny_gemm_reference(const OpCase& c) {
  skinny_gemm_check(c);
  const Tensor& a = c.in("a");
  const Tensor& b = c.in("b");
  const std::int64_t N = a.size(0), M = b.size(0);
  const gemm::MatD A = gemm::to_matrix(a);
  gemm::MatD Y(N, M);
  if (N <= gemm::kSmallRowMaxRows && gemm::smallrow_operand(b))
    gemm::product_nt_smallrow(A, b, Y);  // b decoded inside the FMA loop, read once
  else
    gemm::product_nt_panels(A, M, gemm::tensor_rows(b), Y);  // b decoded panel by panel, never whole
  if (c.has("bias")) {
    const Tensor& bias = c.in("bias");
    const gemm::MatD bm = gemm::to_matrix(
        bias.dim() == 1 ? bias.as_strided({1, M}, {M, bias.stride(0)}, bias.offset()) : bias);  // [1|N, M]
    for (std::int64_t n = 0; n < N; ++n) Y.row(n) += bm.row(n % bm.rows());
  }
  Tensor out = Tensor::empty(a.dtype(), {N, M});
  gemm::store_matrix(Y, out);
  return {{"out", out}};
}

std::map<std::string, Tensor> skinny_gemm_error_bound(const OpCase& c, const Outputs& expected) {
  skinny_gemm_check(c);
  const Tensor& a = c.in("a");
  const Tensor& b = c.in("b");
  const std::int64_t N = a.size(0), K = a.size(1), M = b.size(0);
  const gemm::MatD A = gemm::to_matrix(a), B = gemm::to_matrix(b);
  const gemm::MatD absAB = gemm::product_nt(A.cwiseAbs(), B.cwiseAbs());
  const gemm::MatD Y = gemm::product_nt(A, B) + bias_matrix(c, N, M);
  const gemm::MatD absBias = bias_matrix(c, N, M).cwiseAbs();
  const double u = std::ldexp(1.0, -24);
  const double n1 = static_cast<double>(K + 1);
  const double gamma = n1 * u / (1.0 - n1 * u);
  const double underflow = static_cast<double>(K + 1) * std::ldexp(1.0, -149);  // fp32 subnormal floor per op
  Tensor bound = Tensor::empty(DType::F64, {N, M});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      const double acc = gamma * (absAB(n, m) + absBias(n, m)) + underflow;
      bound.set({n, m}, acc + out_ulp(a.dtype(), std::fabs(Y(n, m)) + acc));
    }
  (void)expected;
  return {{"out", bound}};
}

}  // namespace dsv4::ops
