// Descriptor of op 'per_token_group_quant_fp8' (ops.md §7.1). Shape JSON {"M","K","dtype"}; values
// N(0,1) with per-row magnitudes 2^U(-8,8) and one row that is all zeros (amax floor) when M ≥ 3.
#include <cmath>

#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/common/quant_op_attrs.hpp"
#include "reference/ops/per_token_group_quant_fp8/per_token_group_quant_fp8.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace per_token_group_quant_fp8_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

Tensor random_quant_input(std::mt19937_64& rng, DType dt, std::int64_t rows, std::int64_t cols) {
  Tensor x = gemm::randn(dt, {rows, cols}, rng, 1.0);
  std::uniform_int_distribution<int> e(-8, 8);
  for (std::int64_t r = 0; r < rows; ++r) {
    const double s = std::ldexp(1.0, e(rng));
    for (std::int64_t k = 0; k < cols; ++k) x.set({r, k}, (rows >= 3 && r == 2) ? 0.0 : x.get({r, k}) * s);
  }
  return x;
}

namespace {
OpCase generate(std::mt19937_64& rng, const Json& shape) {
  OpCase c;
  c.inputs["x"] = random_quant_input(rng, gemm::parse_dtype_name(gemm::shape_str_field(shape, "dtype", "bf16")),
                                     gemm::shape_int(shape, "M", -1, 1), gemm::shape_int(shape, "K", -1, 1));
  return c;
}
}  // namespace

OpDescriptor per_token_group_quant_fp8_descriptor() {
  OpDescriptor d;
  d.name = "per_token_group_quant_fp8";
  d.summary = "1 x group_size FP8 quantization with a named scale recipe and scale layout";
  d.contract = "ops.md §7.1; formats.md §5, §7";
  d.inputs = {{"x", {DType::BF16, DType::F16, DType::F32}, "[M, K]", false, ""}};
  d.outputs = {
      {"x_q", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[M, K]", false, "fp8_dtype"},
      {"x_s", {DType::F32, DType::I32}, "row_major/mn_major F32 [M, ceil(K/group_size)]; packed_ue8m0 I32 [M, ceil(K/512)]",
       false, ""},
  };
  d.attrs = quant::quant_attr_specs("plain-fp32", {"row_major", "mn_major", "packed_ue8m0"}, "row_major");
  d.reference = per_token_group_quant_fp8_reference;
  d.generate = generate;
  set_shape_fields(d.name, {"M", "K", "dtype"});
  d.fuzz = ops::per_token_group_quant_fp8_fuzz_space();
  d.default_shapes = {
      Json{{"M", 5}, {"K", 384}, {"dtype", "bf16"}},
      Json{{"M", 3}, {"K", 640}, {"dtype", "fp16"}},
      Json{{"M", 4}, {"K", 200}, {"dtype", "fp32"}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["x_q"] = {"exact", Json::object(),
      "quantization with a named scale recipe and encode mode (formats.md §0, ops.md §7.1) is deterministic: amax, "
      "scale and the one rounding per element are fixed, so codes must match bit for bit. A kernel that multiplies "
      "by the reciprocal scale where the recipe divides may be off by one code: override with ulp n=1 and say why"};
  d.oracle["x_s"] = {"exact", Json::object(),
      "the scale is amax/fp8_max (one correctly rounded fp32 division) or a power of two (UE8M0): exact; padding 0"};
  return d;
}

}  // namespace ops

void register_per_token_group_quant_fp8(Registry& r) { r.add(ops::per_token_group_quant_fp8_descriptor()); }

}  // namespace dsv4
