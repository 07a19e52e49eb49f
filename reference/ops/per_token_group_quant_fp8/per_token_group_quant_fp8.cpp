// per_token_group_quant_fp8 reference; see per_token_group_quant_fp8.hpp.
#include "reference/ops/per_token_group_quant_fp8/per_token_group_quant_fp8.hpp"

#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/quant_op_attrs.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "per_token_group_quant_fp8";
}

Outputs per_token_group_quant_fp8_reference(const OpCase& c) {
  const Tensor& x = c.in("x");
  checks::rank(kOp, "x", x, 2, "[M, K]");
  checks::dtype_in(kOp, "x", x, {DType::BF16, DType::F16, DType::F32});
  const quant::QuantAttrs a = quant::read_quant_attrs(kOp, c);
  const std::int64_t M = x.size(0), K = x.size(1), G = (K + a.group_size - 1) / a.group_size;
  formats::Quantized2D q;
  try {
    q = formats::quantize_per_token_group(a.recipe, quant::to_float_rows(x), M, K, a.group_size, a.fp8, a.opt);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string(kOp) + ": attribute 'scale_recipe': " + e.what());
  }
  Tensor x_q = Tensor::empty(a.fp8_dtype, {M, K});
  for (std::int64_t i = 0; i < M * K; ++i) x_q.set_code_linear(i, q.codes[i]);
  Tensor x_s = quant::make_scale_tensor(a.layout, M, G);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t g = 0; g < G; ++g) {
      const std::size_t i = static_cast<std::size_t>(m * G + g);
      if (a.layout == quant::ScaleLayout::packed_ue8m0) {
        const std::uint32_t byte = quant::scale_byte(kOp, q, i);
        const auto w = static_cast<std::uint32_t>(x_s.code({m, g / 4}));
        x_s.set_code({m, g / 4}, w | (byte << (8 * (g % 4))));
      } else {
        x_s.set({m, g}, q.scales[i]);
      }
    }
  return {{"x_q", x_q}, {"x_s", x_s}};
}

}  // namespace dsv4::ops
