// Host plan of the fp8_einsum 'bhr,hdr->bhd' kernel (ops.md §8): per head h, d[:, h, :] is the block-scaled GEMM
// x[:, h, :] (B x R, 1x128 scales) · w[h]^T (D x R, 128x128 or per-row scales), so the plan is the block-scaled
// GEMM plan (kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp) with batch = H, M = B, N = D, K = R, plus the einsum's
// own refusals (expression, recipe). The GEMM kernel TU serves both ops (no second device TU). Pure C++.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::einsum {

struct EinsumShape {
  std::string expr = "bhr,hdr->bhd";
  std::string recipe = "1,128,128";  // (1,128,128): w_sf [H, ceil(D/128), G]; (1,1,128): w_sf [H, D, G]
  std::int64_t b = 1, h = 1, r = 128, d = 1;
  bsgemm::Fp8 fp8 = bsgemm::Fp8::e4m3fn;
  bsgemm::ScaleKind x_scale = bsgemm::ScaleKind::f32, w_scale = bsgemm::ScaleKind::f32;
  bool has_c = false;  // then d is fp32
};

struct EinsumPlan {
  bool ok = false;
  std::string reason;
  EinsumShape shape;
  bsgemm::BsGemmPlan gemm;  // batch = H heads, M = B, N = D, K = R
  std::string describe() const;
};

EinsumPlan make_einsum_plan(const EinsumShape& s, const port::ArchProfile& arch, const bsgemm::BsGemmOptions& opt = {});
bool can_implement(const EinsumShape& s, const port::ArchProfile& arch, const bsgemm::BsGemmOptions& opt = {});

// The plan sweep this kernel offers the AMD budget check (einsum_plan_sweep.cpp).
PlanSweep einsum_plan_sweep();

}  // namespace dsv4::kernels::einsum
