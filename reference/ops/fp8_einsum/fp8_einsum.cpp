// fp8_einsum float64 reference; see fp8_einsum.hpp. One product per head.
#include "reference/ops/fp8_einsum/fp8_einsum.hpp"

#include <fmt/format.h>
#include <omp.h>

#include "reference/ops/common/blas_gemm.hpp"
#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/gemm_blockscaled.hpp"
#include "reference/ops/common/gemm_smallrow.hpp"
#include "reference/ops/common/gemm_store.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "fp8_einsum";
}

Outputs fp8_einsum_reference(const OpCase& c) {
  checks::require(c.attrs.at("expr").get<std::string>() == "bhr,hdr->bhd", kOp, "expr", "only 'bhr,hdr->bhd' is supported");
  const Tensor& x = c.in("x");
  const Tensor& w = c.in("w");
  const Tensor& x_sf = c.in("x_sf");
  const Tensor& w_sf = c.in("w_sf");
  checks::rank(kOp, "x", x, 3, "[B, H, R]");
  checks::rank(kOp, "w", w, 3, "[H, D, R]");
  checks::dtype_in(kOp, "x", x, {DType::F8_E4M3FN, DType::F8_E4M3FNUZ});
  checks::require(w.dtype() == x.dtype(), kOp, "w", "must have the same fp8 dtype as x");
  const std::int64_t B = x.size(0), H = x.size(1), R = x.size(2), D = w.size(1);
  checks::dim_eq(kOp, "w", w, 0, H, "H (x.size(1))");
  checks::dim_eq(kOp, "w", w, 2, R, "R (x.size(2))");
  checks::rank(kOp, "x_sf", x_sf, 3, "[B, H, ceil(R/128)]");
  checks::rank(kOp, "w_sf", w_sf, 3, "[H, ceil(D/128) or D, ceil(R/128)]");
  checks::dim_eq(kOp, "x_sf", x_sf, 1, H, "H");
  checks::dim_eq(kOp, "w_sf", w_sf, 0, H, "H");
  const std::string recipe = c.attrs.at("recipe").get<std::string>();
  const std::int64_t w_row_block = recipe == "1,128,128" ? 128 : 1;
  DType dt = DType::BF16;
  if (c.has("c")) {
    const Tensor& acc = c.in("c");
    checks::dtype_in(kOp, "c", acc, {DType::F32});
    checks::rank(kOp, "c", acc, 3, "[B, H, D]");
    checks::dim_eq(kOp, "c", acc, 0, B, "B");
    checks::dim_eq(kOp, "c", acc, 1, H, "H");
    checks::dim_eq(kOp, "c", acc, 2, D, "D");
    dt = DType::F32;
  }
  // Per-head 2-D views: x[:, h, :] is [B, R] with x_sf[:, h, :] [B, groups].
  for (std::int64_t h = 0; h < H; ++h) {
    gemm::check_block_scales(kOp, "x_sf", x_sf.select(1, h), B, R, 1);
    gemm::check_block_scales(kOp, "w_sf", w_sf.select(0, h), D, R, w_row_block);
  }
  Tensor d = Tensor::empty(dt, {B, H, D});
  // Enough heads to share out: heads over the threads (one barrier in all); few heads: heads in turn, each
  // head's rows of w over the threads (the products run serially inside a parallel region).
#pragma omp parallel for schedule(dynamic, 1) if (H >= 2 * omp_get_max_threads())
  for (std::int64_t h = 0; h < H; ++h) {
    const gemm::MatD X = gemm::dequantize_blockscaled(x.select(1, h), x_sf.select(1, h), 1);
    const Tensor w_h = w.select(0, h), w_sf_h = w_sf.select(0, h);
    gemm::MatD Y(B, D);
    if (B <= gemm::kSmallRowMaxRows && gemm::smallrow_fp8_operand(w_h))
      gemm::product_nt_smallrow_blockscaled(X, w_h, w_sf_h, w_row_block, Y);
    else
      gemm::product_nt_panels(X, D, gemm::blockscaled_rows(w_h, w_sf_h, w_row_block), Y);
    if (c.has("c")) Y += gemm::to_matrix(c.in("c").select(1, h));
    gemm::store_matrix(Y, d.select(1, h));
  }
  return {{"d", d}};
}

}  // namespace dsv4::ops
