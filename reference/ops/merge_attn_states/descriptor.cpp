// Descriptor of op 'merge_attn_states' (ops.md §1): argument schema, the both_empty / +inf / FP8
// variants as attributes, the float64 reference and a generator covering the edge cases of §1.
#include <limits>

#include "reference/ops/common/attn_gen.hpp"
#include "reference/ops/merge_attn_states/merge_attn_states.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace merge_attn_states_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {

namespace {

std::int64_t shape_int(const Json& s, const char* k, std::int64_t dflt) {
  return s.contains(k) ? s.at(k).get<std::int64_t>() : dflt;
}

// Shape keys: T, H, D; optional dtype ("BF16" | "F16" | "F32"), pad (head padding, 0),
// transposed_lse (bool, true: lse given as a transposed [T, H] view), prefill_tokens_with_context.
OpCase generate(std::mt19937_64& rng, const Json& s) {
  const std::int64_t T = shape_int(s, "T", 6), H = shape_int(s, "H", 8), D = shape_int(s, "D", 128);
  const std::int64_t pad = shape_int(s, "pad", 0);
  const DType dt = parse_dtype(s.contains("dtype") ? s.at("dtype").get<std::string>() : "BF16").value_or(DType::BF16);
  const bool tr = !s.contains("transposed_lse") || s.at("transposed_lse").get<bool>();
  auto make_out = [&]() {
    Tensor base = Tensor::empty(dt, {T * H * (D + pad)});
    base.fill(std::numeric_limits<double>::quiet_NaN());
    Tensor t = base.as_strided({T, H, D}, {H * (D + pad), D + pad, 1}, 0);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, attn::gen_value(rng) * 10);
    return t;
  };
  OpCase c;
  c.inputs["prefix_output"] = make_out();
  c.inputs["suffix_output"] = make_out();
  const double inf = std::numeric_limits<double>::infinity();
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> n(0.0, 3.0);
  auto make_lse = [&]() {
    Tensor lse = tr ? Tensor::empty(DType::F32, {T, H}).transpose(0, 1) : Tensor::empty(DType::F32, {H, T});
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t t = 0; t < T; ++t) {
        const double r = u(rng);
        lse.set({h, t}, r < 0.1 ? -inf : r < 0.15 ? inf : r < 0.2 ? n(rng) + 150 : n(rng));
      }
    return lse;
  };
  Tensor pl = make_lse(), sl = make_lse();
  // Both-empty tokens in the middle of the batch (known-bugs 6), in both the -inf and +inf forms.
  if (T >= 3) {
    for (std::int64_t h = 0; h < H; ++h) {
      pl.set({h, T / 2}, -inf);
      sl.set({h, T / 2}, h % 2 ? inf : -inf);
    }
  }
  c.inputs["prefix_lse"] = pl;
  c.inputs["suffix_lse"] = sl;
  if (s.contains("prefill_tokens_with_context")) c.attrs["prefill_tokens_with_context"] = s.at("prefill_tokens_with_context");
  if (s.contains("output_scale")) c.attrs["output_scale"] = s.at("output_scale");
  return c;
}

}  // namespace

void register_merge_attn_states(Registry& r) {
  OpDescriptor d;
  d.name = "merge_attn_states";
  d.summary = "Merge two partial attention results over disjoint key sets by their LSEs (vLLM)";
  d.contract = "ops.md §1";
  const std::vector<DType> fl = {DType::F32, DType::F16, DType::BF16};
  d.inputs = {
      {"prefix_output", fl, "[T, H, D]", false, "token stride = H * head_stride; padded heads allowed"},
      {"prefix_lse", {DType::F32}, "[H, T]", false, "indexed through real strides (a transposed [T, H] view is legal)"},
      {"suffix_output", fl, "[T, H, D]", false, "same dtype and head stride as prefix_output"},
      {"suffix_lse", {DType::F32}, "[H, T]", false, ""},
  };
  d.outputs = {
      {"output", {DType::F32, DType::F16, DType::BF16, DType::F8_E4M3FN, DType::F8_E4M3FNUZ}, "[T, H, D]", false,
       "input dtype, or fp8 when output_scale is given; prefix's head stride"},
      {"output_lse", {DType::F32}, "[H, T]", false, "natural log; -inf where both sides are empty", true},
  };
  d.attrs = {
      {"prefill_tokens_with_context", nullptr, "tokens [0, n) are merged, the rest copy the suffix; default all",
       {}, true},
      {"output_scale", nullptr, "selects FP8 output: val / scale, saturated, RNE", {}, true},
      {"output_fp8_format", "e4m3fn", "FP8 output format (OCP e4m3fn or FNUZ e4m3fnuz)", {"e4m3fn", "e4m3fnuz"}},
      {"both_empty", "zeros", "both LSEs -inf: zeros (Triton, ROCm) or copy_prefix (C++ kernel)",
       {"zeros", "copy_prefix"}},
      {"pos_inf_lse", "empty", "empty: +inf LSE means an empty split (mapped to -inf); raw: no mapping",
       {"empty", "raw"}},
  };
  d.reference = merge_attn_states_reference;
  d.generate = generate;
  set_shape_fields(d.name, {"T", "H", "D", "dtype", "pad", "output_scale", "prefill_tokens_with_context", "transposed_lse"});
  d.fuzz = ops::merge_attn_states_fuzz_space();
  d.default_shapes = {
      Json{{"T", 6}, {"H", 8}, {"D", 128}},
      Json{{"T", 5}, {"H", 3}, {"D", 64}, {"dtype", "F32"}, {"pad", 16}, {"prefill_tokens_with_context", 3}},
      Json{{"T", 4}, {"H", 4}, {"D", 32}, {"dtype", "F16"}, {"transposed_lse", false}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  // fp8 rows: one ulp at the bottom of a binade (2^-3 relative) plus the smallest subnormal absolute, i.e. a
  // one-ulp disagreement of a value rounded once.
  Json by_dtype = {{"F8_E4M3FN", {{"atol", 0x1p-9}, {"rtol", 0.125}}},
                   {"F8_E4M3FNUZ", {{"atol", 0x1p-10}, {"rtol", 0.125}}},
                   {"F32", {{"atol", 1e-3}, {"rtol", 1e-3}}},
                   {"F16", {{"atol", 1e-3}, {"rtol", 1e-3}}},
                   {"BF16", {{"atol", 1e-3}, {"rtol", 1e-2}}}};
  d.oracle["output"] = {"allclose", {{"by_dtype", by_dtype}},
      "vLLM test_merge_attn_states tolerances per dtype (ops.md §1): fp32/fp16 1e-3/1e-3, bf16 1e-3/1e-2. FP8: vLLM "
      "compares 0.05-scaled values at 1e-1; on raw fp8 codes dsv4check admits one ulp (rtol 2^-3 plus the smallest "
      "subnormal), the one rounding a correct fp32 merge can disagree by"};
  d.oracle["output_lse"] = {"allclose", {{"atol", 1e-3}, {"rtol", 1e-3}},
      "ops.md §1: the same tolerances apply to the lse (fp32: 1e-3/1e-3); +-inf/NaN positions must match exactly"};
  r.add(std::move(d));
}

}  // namespace dsv4
