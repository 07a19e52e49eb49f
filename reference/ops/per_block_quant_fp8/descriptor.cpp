// Descriptor of op 'per_block_quant_fp8' (ops.md §7.1). Shape JSON {"N","K","dtype"}; values N(0,1)
// with per-row magnitudes 2^U(-8,8) (so tiles mix magnitudes) and one all-zero row when N ≥ 3.
#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/common/quant_op_attrs.hpp"
#include "reference/ops/per_block_quant_fp8/per_block_quant_fp8.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace per_block_quant_fp8_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

Tensor random_quant_input(std::mt19937_64& rng, DType dt, std::int64_t rows, std::int64_t cols);  // per_token_group

namespace {
OpCase generate(std::mt19937_64& rng, const Json& shape) {
  OpCase c;
  c.inputs["w"] = random_quant_input(rng, gemm::parse_dtype_name(gemm::shape_str_field(shape, "dtype", "bf16")),
                                     gemm::shape_int(shape, "N", -1, 1), gemm::shape_int(shape, "K", -1, 1));
  return c;
}
}  // namespace

OpDescriptor per_block_quant_fp8_descriptor() {
  OpDescriptor d;
  d.name = "per_block_quant_fp8";
  d.summary = "group_size x group_size block FP8 weight quantization (weight_scale_inv) with a named scale recipe";
  d.contract = "ops.md §7.1; formats.md §5, §7";
  d.inputs = {{"w", {DType::BF16, DType::F16, DType::F32}, "[N, K]", false, ""}};
  d.outputs = {
      {"w_q", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[N, K]", false, "fp8_dtype"},
      {"w_s", {DType::F32, DType::I32}, "[ceil(N/128), ceil(K/128)] F32; packed_ue8m0: I32 [N, ceil(K/512)] (broadcast along N)",
       false, ""},
  };
  d.attrs = quant::quant_attr_specs("plain-fp32", {"row_major", "mn_major", "packed_ue8m0"}, "row_major");
  d.reference = per_block_quant_fp8_reference;
  d.generate = generate;
  set_shape_fields(d.name, {"N", "K", "dtype"});
  d.fuzz = ops::per_block_quant_fp8_fuzz_space();
  d.default_shapes = {
      Json{{"N", 130}, {"K", 300}, {"dtype", "bf16"}},
      Json{{"N", 64}, {"K", 640}, {"dtype", "fp32"}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["w_q"] = {"exact", Json::object(),
      "quantization with a named scale recipe and encode mode (formats.md §0, ops.md §7.1) is deterministic: amax, "
      "scale and the one rounding per element are fixed, so codes must match bit for bit. A kernel that multiplies "
      "by the reciprocal scale where the recipe divides may be off by one code: override with ulp n=1 and say why"};
  d.oracle["w_s"] = {"exact", Json::object(),
      "the scale is amax/fp8_max (one correctly rounded fp32 division) or a power of two (UE8M0): exact; padding 0"};
  return d;
}

}  // namespace ops

void register_per_block_quant_fp8(Registry& r) { r.add(ops::per_block_quant_fp8_descriptor()); }

}  // namespace dsv4
