// Float64 matrix products of the references on OpenBLAS (cblas_dgemm). OpenBLAS picks its kernels at
// run time for the CPU it runs on (Debian builds it with DYNAMIC_ARCH), so one binary uses AVX2 or
// AVX-512 FMAs where they exist. Invariant: OpenBLAS runs single-threaded (set once, before the first
// product); parallelism is ours: a product called outside an OpenMP region splits the columns of its
// result over the OpenMP threads, one single-threaded dgemm each, and a product called inside one
// runs on its caller's thread, so nested pools never oversubscribe the cores. Each element of a result
// is one dgemm's float64 dot product (blocked along k by OpenBLAS), within every op's error model.
#pragma once
#include <string>

#include "reference/ops/common/gemm_matrix.hpp"

namespace dsv4::gemm {

using ConstRef = Eigen::Ref<const MatD, 0, Eigen::OuterStride<>>;
using MutRef = Eigen::Ref<MatD, 0, Eigen::OuterStride<>>;

// C = A·Bᵀ + beta·C: A [n, k], B [m, k], C [n, m] (every operand row-major, unit inner stride).
void product_nt(const ConstRef& A, const ConstRef& B, MutRef C, double beta = 0.0);
// C = A·B + beta·C: A [n, k], B [k, m], C [n, m].
void product_nn(const ConstRef& A, const ConstRef& B, MutRef C, double beta = 0.0);

// A·Bᵀ and A·B as new matrices.
MatD product_nt(const ConstRef& A, const ConstRef& B);
MatD product_nn(const ConstRef& A, const ConstRef& B);

// The BLAS in use and the kernel set it chose for this CPU (e.g. "OpenBLAS 0.3.21, Haswell kernels").
std::string blas_description();

}  // namespace dsv4::gemm
