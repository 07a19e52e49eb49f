// Float64 products on OpenBLAS with OpenMP column splits; see blas_gemm.hpp.
#include "reference/ops/common/blas_gemm.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include <cblas.h>
#include <fmt/format.h>
#include <omp.h>

namespace dsv4::gemm {

namespace {

void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

// Columns [j0, j1) of C from one dgemm; B's columns of C are B's rows (nt) or columns (nn).
void dgemm_cols(bool b_transposed, const ConstRef& A, const ConstRef& B, MutRef& C, double beta, Eigen::Index j0,
                Eigen::Index j1) {
  const Eigen::Index n = A.rows(), k = A.cols(), m = j1 - j0;
  if (n == 0 || m == 0) return;
  const double* b = b_transposed ? B.data() + j0 * B.outerStride() : B.data() + j0;
  if (k == 0) {  // dgemm with k = 0 scales C by beta; say so explicitly (beta = 0 must not read C)
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = j0; j < j1; ++j) C(i, j) = beta == 0.0 ? 0.0 : beta * C(i, j);
    return;
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, static_cast<blasint>(n),
              static_cast<blasint>(m), static_cast<blasint>(k), 1.0, A.data(), static_cast<blasint>(A.outerStride()), b,
              static_cast<blasint>(B.outerStride()), beta, C.data() + j0, static_cast<blasint>(C.outerStride()));
}

void product(bool b_transposed, const ConstRef& A, const ConstRef& B, MutRef C, double beta) {
  const Eigen::Index k_b = b_transposed ? B.cols() : B.rows(), m = b_transposed ? B.rows() : B.cols();
  if (A.cols() != k_b || C.rows() != A.rows() || C.cols() != m)
    throw std::invalid_argument(fmt::format("gemm::product: shapes [{}, {}] x {}[{}, {}] -> [{}, {}] do not agree",
                                            A.rows(), A.cols(), b_transposed ? "T" : "", B.rows(), B.cols(), C.rows(),
                                            C.cols()));
  single_threaded_blas();
  const double flops = 2.0 * static_cast<double>(A.rows()) * static_cast<double>(m) * static_cast<double>(k_b);
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  // Split columns in multiples of 64 (whole micro-kernel panels) once a part is worth a thread (~1 Mflop).
  const Eigen::Index parts = std::min<Eigen::Index>({threads, std::max<Eigen::Index>(1, m / 64),
                                                     std::max<Eigen::Index>(1, static_cast<Eigen::Index>(flops / 1e6))});
  if (parts <= 1) {
    dgemm_cols(b_transposed, A, B, C, beta, 0, m);
    return;
  }
  const Eigen::Index chunk = (m / parts + 63) / 64 * 64;
#pragma omp parallel for schedule(static) num_threads(static_cast<int>(parts))
  for (Eigen::Index p = 0; p < parts; ++p)
    dgemm_cols(b_transposed, A, B, C, beta, std::min(m, p * chunk), p + 1 == parts ? m : std::min(m, (p + 1) * chunk));
}

}  // namespace

void product_nt(const ConstRef& A, const ConstRef& B, MutRef C, double beta) { product(true, A, B, C, beta); }
void product_nn(const ConstRef& A, const ConstRef& B, MutRef C, double beta) { product(false, A, B, C, beta); }

MatD product_nt(const ConstRef& A, const ConstRef& B) {
  MatD C(A.rows(), B.rows());
  product(true, A, B, C, 0.0);
  return C;
}

MatD product_nn(const ConstRef& A, const ConstRef& B) {
  MatD C(A.rows(), B.cols());
  product(false, A, B, C, 0.0);
  return C;
}

std::string blas_description() {
  return fmt::format("OpenBLAS ({}; {} kernels chosen at run time)", openblas_get_config(), openblas_get_corename());
}

}  // namespace dsv4::gemm
