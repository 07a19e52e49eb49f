// Descriptor of op 'inv_rope_fp8_quant' (ops.md §7.2). Shape JSON {"T","H","max_pos", "theta"}: o from
// N(0,1)·2^U(-4,4) per token, positions uniform in [0, max_pos), cos_sin_cache built from
// θ_i = theta^(−2i/rope_dim) (theta default 10000) in fp32.
#include <cmath>

#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/common/quant_op_attrs.hpp"
#include "reference/ops/inv_rope_fp8_quant/inv_rope_fp8_quant.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace inv_rope_fp8_quant_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

namespace {
OpCase generate(std::mt19937_64& rng, const Json& shape) {
  const std::int64_t T = gemm::shape_int(shape, "T", -1, 1);
  const std::int64_t H = gemm::shape_int(shape, "H", 8, 1);
  const std::int64_t max_pos = gemm::shape_int(shape, "max_pos", 4096, 1);
  const std::int64_t G = gemm::shape_int(shape, "n_groups", std::min<std::int64_t>(8, H), 1);
  const double theta = shape.is_object() && shape.contains("theta") ? shape.at("theta").get<double>() : 10000.0;
  const std::int64_t rope_dim = 64;
  OpCase c;
  c.attrs["n_groups"] = G;
  Tensor o = gemm::randn(DType::BF16, {T, H, 512}, rng, 1.0);
  std::uniform_int_distribution<int> e(-4, 4);
  for (std::int64_t t = 0; t < T; ++t) {
    const double s = std::ldexp(1.0, e(rng));
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t d = 0; d < 512; ++d) o.set({t, h, d}, o.get({t, h, d}) * s);
  }
  c.inputs["o"] = o;
  Tensor pos = Tensor::empty(DType::I64, {T});
  std::uniform_int_distribution<std::int64_t> up(0, max_pos - 1);
  for (std::int64_t t = 0; t < T; ++t) pos.set({t}, static_cast<double>(up(rng)));
  c.inputs["positions"] = pos;
  Tensor cache = Tensor::empty(DType::F32, {max_pos, rope_dim});
  for (std::int64_t p = 0; p < max_pos; ++p)
    for (std::int64_t i = 0; i < rope_dim / 2; ++i) {
      const double ang = static_cast<double>(p) * std::pow(theta, -2.0 * static_cast<double>(i) / rope_dim);
      cache.set({p, i}, std::cos(ang));
      cache.set({p, rope_dim / 2 + i}, std::sin(ang));
    }
  c.inputs["cos_sin_cache"] = cache;
  return c;
}
}  // namespace

OpDescriptor inv_rope_fp8_quant_descriptor() {
  OpDescriptor d;
  d.name = "inv_rope_fp8_quant";
  d.summary = "V4 attention output: inverse RoPE on dims 448..511, then FP8 1x128 UE8M0 quantization, grouped layout";
  d.contract = "ops.md §7.2, §7.3";
  d.inputs = {
      {"o", {DType::BF16}, "[T, H, 512]", false, ""},
      {"positions", {DType::I64, DType::I32}, "[T]", false, "0 <= position < max_pos"},
      {"cos_sin_cache", {DType::F32}, "[max_pos, 64]", false, "[cos(32) ‖ sin(32)]"},
  };
  d.outputs = {
      {"o_fp8", {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "logical [T, G, (H/G)·512], stored [G, T, D]", false, ""},
      {"o_scale", {DType::F32, DType::I32}, "[G, align(T,4), D/128] F32 MN-major, or [G, align(T,4), D/512] I32 packed",
       false, "padding rows 0"},
  };
  d.attrs = quant::quant_attr_specs("vllm-v4-invrope", {"mn_major", "packed_ue8m0"}, "mn_major");
  d.attrs.push_back({"n_groups", 8, "G: heads are quantized in G groups of H/G heads", {}, false});
  d.attrs.push_back({"rope_dim", 64, "rotated dims: the last rope_dim of each head", {}, false});
  d.attrs.push_back({"pairing", "interleaved", "RoPE pairing variant (ops.md §7.3): interleaved (GPT-J) or neox",
                     {"interleaved", "neox"}, false});
  d.reference = inv_rope_fp8_quant_reference;
  d.generate = generate;
  set_shape_fields(d.name, {"T", "H", "max_pos", "n_groups", "theta"});
  d.fuzz = ops::inv_rope_fp8_quant_fuzz_space();
  d.default_shapes = {
      Json{{"T", 5}, {"H", 8}, {"max_pos", 64}},
      Json{{"T", 3}, {"H", 16}, {"n_groups", 8}, {"max_pos", 1000}},
      Json{{"T", 4}, {"H", 4}, {"n_groups", 2}, {"max_pos", 32}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["o_fp8"] = {"ulp", {{"n", 1}},
      "ops.md §7.2: fp32 RoPE rotation (a*c + b*s: fma vs separate rounding differs by an fp32 ulp) then one fp8 "
      "rounding: a value near an fp8 rounding midpoint may land one code away. Never more than one"};
  d.oracle["o_scale"] = {"exact", Json::object(),
      "UE8M0 ceil of amax/448 over each 128-group: exact except when fp32 rotation error moves amax across a power "
      "of two (probability ~2^-20 per group); padding rows must be 0"};
  return d;
}

}  // namespace ops

void register_inv_rope_fp8_quant(Registry& r) { r.add(ops::inv_rope_fp8_quant_descriptor()); }

}  // namespace dsv4
