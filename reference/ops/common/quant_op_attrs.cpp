// Quant-op attribute handling; see quant_op_attrs.hpp.
#include "reference/ops/common/quant_op_attrs.hpp"

#include <fmt/format.h>

#include "reference/formats/format.hpp"
#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/gemm_matrix.hpp"
#include "reference/ops/common/quant_fp8_encode.hpp"

namespace dsv4::quant {

std::vector<std::string> fp8_recipe_names() {
  return {"dg-ceil", "dsv4-act", "tk-ceil", "v3-triton", "flashmla-kv-test", "vllm-v4-kv", "vllm-v4-invrope",
          "plain-fp32", "mx-floor"};
}

std::vector<AttrSpec> quant_attr_specs(const std::string& default_recipe, std::vector<std::string> layouts,
                                       const std::string& default_layout) {
  return {
      {"group_size", 128, "quantization group (block) length along K", {}, false},
      {"fp8_dtype", "e4m3fn", "fp8 element format", {"e4m3fn", "e4m3fnuz"}, false},
      {"fp8_max", nullptr, "element clamp / scale divisor; null = the recipe's default (448; 224 for vLLM fnuz)", {}, true},
      {"scale_recipe", default_recipe, "named shared-scale recipe (formats.md §5)", fp8_recipe_names(), false},
      {"scale_layout", default_layout, "row_major [M, G], mn_major (stride(-2)=1, stride(-1)=align(M,4)), packed_ue8m0",
       std::move(layouts), false},
  };
}

QuantAttrs read_quant_attrs(const std::string& op, const OpCase& c) {
  QuantAttrs a{};
  const std::string rname = c.attrs.at("scale_recipe").get<std::string>();
  const auto r = formats::parse_recipe(rname);
  checks::require(r.has_value(), op, "scale_recipe", "unknown recipe '" + rname + "'");
  a.recipe = *r;
  const std::string f = c.attrs.at("fp8_dtype").get<std::string>();
  a.fp8 = f == "e4m3fnuz" ? formats::Format::e4m3fnuz : formats::Format::e4m3fn;
  a.fp8_dtype = f == "e4m3fnuz" ? DType::F8_E4M3FNUZ : DType::F8_E4M3FN;
  const Json& fm = c.attrs.at("fp8_max");
  if (!fm.is_null()) {
    checks::require(fm.is_number(), op, "fp8_max", "must be a number or null");
    const double v = fm.get<double>();
    checks::require(v > 0 && v <= formats::max_finite(a.fp8), op, "fp8_max",
                    fmt::format("= {} must lie in (0, {}] (largest finite {})", v, formats::max_finite(a.fp8), f));
    a.opt.elem_max = v;
  }
  a.layout = parse_scale_layout(c.attrs.at("scale_layout").get<std::string>());
  a.group_size = c.attrs.at("group_size").get<std::int64_t>();
  checks::require(a.group_size > 0, op, "group_size", "must be > 0");
  return a;
}

std::vector<float> to_float_rows(const Tensor& x) {
  const gemm::MatD m = gemm::to_matrix(x);
  std::vector<float> v(static_cast<std::size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) v[i * m.cols() + j] = static_cast<float>(m(i, j));
  return v;
}

std::uint8_t scale_byte(const std::string& op, const formats::Quantized2D& q, std::size_t i) {
  if (!q.scale_e8m0.empty()) return q.scale_e8m0[i];
  const float s = q.scales[i];
  if (!is_pow2(s))
    throw InputError(fmt::format("{}: attribute 'scale_layout' = packed_ue8m0 needs a power-of-two (UE8M0) scale_recipe; "
                                 "block {} has scale {}", op, i, s));
  return ue8m0_byte_of_pow2(s);
}

}  // namespace dsv4::quant
