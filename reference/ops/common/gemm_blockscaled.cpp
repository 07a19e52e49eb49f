// Block-scaled fp8 dequantization; see gemm_blockscaled.hpp.
#include "reference/ops/common/gemm_blockscaled.hpp"

#include <fmt/format.h>

#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/quant_scale_layout.hpp"

namespace dsv4::gemm {

void check_block_scales(const std::string& op, const std::string& arg, const Tensor& sf, std::int64_t rows,
                        std::int64_t cols, std::int64_t row_block) {
  checks::dtype_in(op, arg, sf, {DType::F32, DType::F8_E8M0, DType::I32});
  checks::rank(op, arg, sf, 2, "2-D block scales");
  const std::int64_t want_rows = ceil_div(rows, row_block), groups = ceil_div(cols, kScaleGroup);
  checks::dim_eq(op, arg, sf, 0, want_rows, fmt::format("ceil({}/{})", rows, row_block));
  if (sf.dtype() == DType::I32)
    checks::dim_eq(op, arg, sf, 1, ceil_div(groups, 4), fmt::format("ceil({}/512) packed UE8M0 words", cols));
  else
    checks::dim_eq(op, arg, sf, 1, groups, fmt::format("ceil({}/128)", cols));
}

MatD dequantize_blockscaled(const Tensor& q, const Tensor& sf, std::int64_t row_block) {
  MatD m = to_matrix(q);
  const std::int64_t rows = m.rows(), cols = m.cols();
  const std::int64_t srows = ceil_div(rows, row_block), groups = ceil_div(cols, kScaleGroup);
  MatD s(srows, groups);
  for (std::int64_t i = 0; i < srows; ++i)
    for (std::int64_t g = 0; g < groups; ++g) s(i, g) = quant::scale_at(sf, i, g);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = 0; k < cols; ++k) m(i, k) *= s(i / row_block, k / kScaleGroup);
  return m;
}

}  // namespace dsv4::gemm
