// Products against panel-decoded operands; see gemm_panels.hpp.
#include "reference/ops/common/gemm_panels.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <omp.h>

namespace dsv4::gemm {

void product_nt_panels(const ConstRef& A, std::int64_t m, const PanelSource& source, MutRef C, double beta) {
  const std::int64_t n = A.rows(), k = A.cols();
  if (C.rows() != n || C.cols() != m)
    throw std::invalid_argument(fmt::format("gemm::product_nt_panels: A [{}, {}] x B [{}, {}]ᵀ -> C [{}, {}] do not agree",
                                            n, k, m, k, C.rows(), C.cols()));
  if (n == 0 || m == 0) return;
  if (k == 0) {  // an empty sum: C = beta·C (beta = 0 must not read C)
    if (beta == 0.0) C.setZero();
    else C *= beta;
    return;
  }
  const std::int64_t panels = (m + kPanelRows - 1) / kPanelRows;
  // One panel runs outside a parallel region, where product_nt splits its columns over the threads.
#pragma omp parallel if (panels > 1 && !omp_in_parallel())
  {
    std::vector<double> buf(static_cast<std::size_t>(std::min(kPanelRows, m) * std::min(kPanelCols, k)));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t j0 = p * kPanelRows, rows = std::min(kPanelRows, m - j0);
      for (std::int64_t k0 = 0; k0 < k; k0 += kPanelCols) {
        const std::int64_t w = std::min(kPanelCols, k - k0);
        source(j0, rows, k0, w, buf.data());
        const Eigen::Map<const MatD> panel(buf.data(), rows, w);
        product_nt(A.middleCols(k0, w), panel, C.middleCols(j0, rows), k0 == 0 ? beta : 1.0);
      }
    }
  }
}

PanelSource tensor_rows(const Tensor& b) {
  if (b.dim() != 2) throw std::invalid_argument("gemm::tensor_rows needs a 2-D tensor, got " + describe(b));
  return [&b](std::int64_t j0, std::int64_t n, std::int64_t k0, std::int64_t w, double* dst) {
    decode_block(b, j0, n, k0, w, dst, w);
  };
}

}  // namespace dsv4::gemm
