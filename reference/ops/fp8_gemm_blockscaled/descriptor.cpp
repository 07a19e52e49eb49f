// Descriptor of op 'fp8_gemm_blockscaled'. Shape JSON: {"M","N","K", "scale": fp32 | fp32_mn_major |
// ue8m0 | packed_ue8m0 (both operands), "w_scale": "block" (128x128, default) | "row" (per-row,
// SM100 broadcast), "c": true for an fp32 accumulator}.
#include <cmath>

#include "reference/ops/common/gemm_blockscaled.hpp"
#include "reference/ops/common/gemm_blockscaled_bound.hpp"
#include "reference/ops/common/gemm_blockscaled_random.hpp"
#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/fp8_gemm_blockscaled/fp8_gemm_blockscaled.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace fp8_gemm_blockscaled_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

namespace {
OpCase generate_fp8_gemm_blockscaled(std::mt19937_64& rng, const Json& shape) {
  const std::int64_t M = gemm::shape_int(shape, "M", -1, 1);
  const std::int64_t N = gemm::shape_int(shape, "N", -1, 1);
  const std::int64_t K = gemm::shape_int(shape, "K", -1, 1);
  const std::string form = gemm::shape_str_field(shape, "scale", "fp32");
  const bool per_row = gemm::shape_str_field(shape, "w_scale", "block") == "row";
  const DType dt = gemm::parse_dtype_name(gemm::shape_str_field(shape, "dtype", "e4m3fn"));
  OpCase c;
  c.inputs["x"] = gemm::randn(dt, {M, K}, rng, 16.0);
  c.inputs["w"] = gemm::randn(dt, {N, K}, rng, 16.0);
  c.inputs["x_sf"] = gemm::random_block_scales(rng, form, M, gemm::ceil_div(K, 128));
  c.inputs["w_sf"] = gemm::random_block_scales(rng, form, per_row ? N : gemm::ceil_div(N, 128), gemm::ceil_div(K, 128));
  if (shape.is_object() && shape.value("c", false)) {
    c.inputs["c"] = gemm::randn(DType::F32, {M, N}, rng, 1.0);
    c.attrs["out_dtype"] = "fp32";
  }
  return c;
}

// error_model.md bound for an fp32-accumulating kernel (u_mma = 2^-24), validated by the reference first.
std::map<std::string, Tensor> fp8_gemm_blockscaled_error_bound(const OpCase& c, const Outputs& expected) {
  (void)fp8_gemm_blockscaled_reference(c);  // argument checks
  const Tensor& w = c.in("w");
  const std::int64_t w_row_block = c.in("w_sf").size(0) == gemm::ceil_div(w.size(0), 128) ? 128 : 1;
  const Tensor* acc = c.has("c") ? &c.in("c") : nullptr;
  const gemm::MatD b = gemm::blockscaled_error_bound(c.in("x"), c.in("x_sf"), w, c.in("w_sf"), w_row_block, acc,
                                                     expected.at("d").dtype(), std::ldexp(1.0, -24));
  Tensor t = Tensor::empty(DType::F64, {b.rows(), b.cols()});
  for (std::int64_t m = 0; m < b.rows(); ++m)
    for (std::int64_t n = 0; n < b.cols(); ++n) t.set({m, n}, b(m, n));
  return {{"d", t}};
}
}  // namespace

OpDescriptor fp8_gemm_blockscaled_descriptor() {
  OpDescriptor d;
  d.name = "fp8_gemm_blockscaled";
  d.summary = "d[M,N] = (x·x_sf)(w·w_sf)^T (+ c): fp8 GEMM with 1x128 activation and 128x128 weight scales";
  d.contract = "ops.md §7/§8 (DeepGEMM fp8_gemm_nt recipe (1,128,128)); formats.md §7";
  const std::vector<DType> scale_types{DType::F32, DType::F8_E8M0, DType::I32};
  d.inputs = {
      {"x", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[M, K]", false, "activations"},
      {"x_sf", scale_types, "[M, ceil(K/128)] (F32 any strides, F8_E8M0) or [M, ceil(K/512)] I32 packed UE8M0", false, ""},
      {"w", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[N, K]", false, "same fp8 dtype as x"},
      {"w_sf", scale_types, "[ceil(N/128), ceil(K/128)] (or [N, ...] per row); packed: last dim ceil(K/512)", false, ""},
      {"c", {DType::F32}, "[M, N]", true, "fp32 accumulator; requires out_dtype=fp32"},
  };
  d.outputs = {{"d", {DType::BF16, DType::F32}, "[M, N]", false, "out_dtype"}};
  d.attrs = {{"out_dtype", "bf16", "dtype of d", {"bf16", "fp32"}, false}};
  d.reference = fp8_gemm_blockscaled_reference;
  d.generate = generate_fp8_gemm_blockscaled;
  d.error_bound = fp8_gemm_blockscaled_error_bound;
  set_shape_fields(d.name, {"M", "N", "K", "dtype", "scale", "w_scale", "c"});
  d.fuzz = ops::fp8_gemm_blockscaled_fuzz_space();
  d.default_shapes = {
      Json{{"M", 5}, {"N", 130}, {"K", 300}, {"scale", "fp32"}},
      Json{{"M", 8}, {"N", 64}, {"K", 640}, {"scale", "packed_ue8m0"}},
      Json{{"M", 3}, {"N", 40}, {"K", 256}, {"scale", "ue8m0"}, {"w_scale", "row"}, {"c", true}},
      Json{{"M", 7}, {"N", 129}, {"K", 128}, {"scale", "fp32_mn_major"}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["d"] = {"error-bound", {{"multiple", 1}},
      "error_model.md: per-block MMA accumulation gamma_128 sum|x w| scaled, two fp32 roundings per block promotion, "
      "gamma_(KB+1) over the blocks, plus one output ulp (a worst case)"};
  return d;
}

}  // namespace ops

void register_fp8_gemm_blockscaled(Registry& r) { r.add(ops::fp8_gemm_blockscaled_descriptor()); }

}  // namespace dsv4
