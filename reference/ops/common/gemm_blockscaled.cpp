// Block-scaled fp8 dequantization; see gemm_blockscaled.hpp.
#include "reference/ops/common/gemm_blockscaled.hpp"

#include <algorithm>
#include <vector>

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

namespace {
// Multiplies dst = q[j0:j0+n, k0:k0+w] (already decoded, leading dimension ld) by its block scales.
void apply_scales(const Tensor& sf, std::int64_t row_block, std::int64_t j0, std::int64_t n, std::int64_t k0,
                  std::int64_t w, double* dst, std::int64_t ld) {
  std::int64_t cached_block = -1;
  std::vector<double> s;  // scales of the current row block, one per group touching [k0, k0+w)
  const std::int64_t g0 = k0 / kScaleGroup, g1 = (k0 + w - 1) / kScaleGroup;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t blk = (j0 + i) / row_block;
    if (blk != cached_block) {
      s.resize(static_cast<std::size_t>(g1 - g0 + 1));
      for (std::int64_t g = g0; g <= g1; ++g) s[g - g0] = quant::scale_at(sf, blk, g);
      cached_block = blk;
    }
    double* row = dst + i * ld;
    for (std::int64_t g = g0; g <= g1; ++g) {
      const std::int64_t a = std::max(k0, g * kScaleGroup) - k0, b = std::min(k0 + w, (g + 1) * kScaleGroup) - k0;
      const double sc = s[g - g0];
      for (std::int64_t k = a; k < b; ++k) row[k] *= sc;  // exact: fp8 (4 bits) x fp32 or 2^e scale fits float64
    }
  }
}
}  // namespace

MatD dequantize_blockscaled(const Tensor& q, const Tensor& sf, std::int64_t row_block) {
  MatD m = to_matrix(q);
  if (m.rows() > 0 && m.cols() > 0) apply_scales(sf, row_block, 0, m.rows(), 0, m.cols(), m.data(), m.cols());
  return m;
}

PanelSource blockscaled_rows(const Tensor& q, const Tensor& sf, std::int64_t row_block) {
  const double* tab = q.element_bytes() == 1 ? code_table(q.dtype()) : nullptr;
  if (!tab || (q.size(1) > 1 && q.stride(1) != 1)) {  // general: decode, then scale
    return [&q, &sf, row_block](std::int64_t j0, std::int64_t n, std::int64_t k0, std::int64_t w, double* dst) {
      decode_block(q, j0, n, k0, w, dst, w);
      if (n > 0 && w > 0) apply_scales(sf, row_block, j0, n, k0, w, dst, w);
    };
  }
  // fp8 rows with unit stride: one pass, value = table[code] · scale (the product is exact).
  return [&q, &sf, row_block, tab](std::int64_t j0, std::int64_t n, std::int64_t k0, std::int64_t w, double* dst) {
    if (n == 0 || w == 0) return;
    const auto* codes = reinterpret_cast<const std::uint8_t*>(q.data());
    const std::int64_t g0 = k0 / kScaleGroup, g1 = (k0 + w - 1) / kScaleGroup;
    std::vector<double> s(static_cast<std::size_t>(g1 - g0 + 1));
    std::int64_t cached_block = -1;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t blk = (j0 + i) / row_block;
      if (blk != cached_block) {
        for (std::int64_t g = g0; g <= g1; ++g) s[g - g0] = quant::scale_at(sf, blk, g);
        cached_block = blk;
      }
      const std::uint8_t* row = codes + (j0 + i) * q.stride(0) + k0;
      double* out = dst + i * w;
      for (std::int64_t g = g0; g <= g1; ++g) {
        const std::int64_t a = std::max(k0, g * kScaleGroup) - k0, b = std::min(k0 + w, (g + 1) * kScaleGroup) - k0;
        const double sc = s[g - g0];
        for (std::int64_t k = a; k < b; ++k) out[k] = tab[row[k]] * sc;
      }
    }
  };
}

}  // namespace dsv4::gemm
