// fp8_gemm_blockscaled float64 reference; see fp8_gemm_blockscaled.hpp.
#include "reference/ops/fp8_gemm_blockscaled/fp8_gemm_blockscaled.hpp"

#include <fmt/format.h>

#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/blas_gemm.hpp"
#include "reference/ops/common/gemm_blockscaled.hpp"
#include "reference/ops/common/gemm_smallrow.hpp"
#include "reference/ops/common/gemm_store.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "fp8_gemm_blockscaled";
}

Outputs fp8_gemm_blockscaled_reference(const OpCase& c) {
  const Tensor& x = c.in("x");
  const Tensor& w = c.in("w");
  const Tensor& x_sf = c.in("x_sf");
  const Tensor& w_sf = c.in("w_sf");
  checks::rank(kOp, "x", x, 2, "[M, K]");
  checks::rank(kOp, "w", w, 2, "[N, K]");
  checks::dtype_in(kOp, "x", x, {DType::F8_E4M3FN, DType::F8_E4M3FNUZ});
  checks::require(w.dtype() == x.dtype(), kOp, "w", "must have the same fp8 dtype as x");
  const std::int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  checks::dim_eq(kOp, "w", w, 1, K, "K (x.size(1))");
  gemm::check_block_scales(kOp, "x_sf", x_sf, M, K, 1);
  checks::rank(kOp, "w_sf", w_sf, 2, "[ceil(N/128), ceil(K/128)] or [N, ceil(K/128)]");
  const std::int64_t w_row_block = w_sf.size(0) == gemm::ceil_div(N, 128) ? 128 : 1;
  gemm::check_block_scales(kOp, "w_sf", w_sf, N, K, w_row_block);
  const std::string out_dtype = c.attrs.at("out_dtype").get<std::string>();
  DType dt = out_dtype == "fp32" ? DType::F32 : DType::BF16;
  if (c.has("c")) {
    const Tensor& acc = c.in("c");
    checks::dtype_in(kOp, "c", acc, {DType::F32});
    checks::rank(kOp, "c", acc, 2, "[M, N]");
    checks::dim_eq(kOp, "c", acc, 0, M, "M");
    checks::dim_eq(kOp, "c", acc, 1, N, "N");
    checks::require(dt == DType::F32, kOp, "out_dtype", "must be fp32 when the accumulator c is given");
  }
  const gemm::MatD X = gemm::dequantize_blockscaled(x, x_sf, 1);
  gemm::MatD D(M, N);
  if (M <= gemm::kSmallRowMaxRows && gemm::smallrow_fp8_operand(w))
    gemm::product_nt_smallrow_blockscaled(X, w, w_sf, w_row_block, D);  // w decoded and scaled in registers
  else
    gemm::product_nt_panels(X, N, gemm::blockscaled_rows(w, w_sf, w_row_block), D);  // w dequantized per panel
  if (c.has("c")) D += gemm::to_matrix(c.in("c"));
  Tensor d = Tensor::empty(dt, {M, N});
  gemm::store_matrix(D, d);
  return {{"d", d}};
}

}  // namespace dsv4::ops
