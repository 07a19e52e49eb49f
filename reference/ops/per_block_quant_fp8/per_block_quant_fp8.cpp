// per_block_quant_fp8 reference; see per_block_quant_fp8.hpp.
#include "reference/ops/per_block_quant_fp8/per_block_quant_fp8.hpp"

#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/quant_op_attrs.hpp"

namespace dsv4::ops {

namespace {
constexpr const char* kOp = "per_block_quant_fp8";
}

Outputs per_block_quant_fp8_reference(const OpCase& c) {
  const Tensor& w = c.in("w");
  checks::rank(kOp, "w", w, 2, "[N, K]");
  checks::dtype_in(kOp, "w", w, {DType::BF16, DType::F16, DType::F32});
  const quant::QuantAttrs a = quant::read_quant_attrs(kOp, c);
  const std::int64_t N = w.size(0), K = w.size(1), gs = a.group_size;
  const std::int64_t NB = (N + gs - 1) / gs, KB = (K + gs - 1) / gs;
  formats::Quantized2D q;
  try {
    q = formats::quantize_per_block(a.recipe, quant::to_float_rows(w), N, K, gs, a.fp8, a.opt);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string(kOp) + ": attribute 'scale_recipe': " + e.what());
  }
  Tensor w_q = Tensor::empty(a.fp8_dtype, {N, K});
  for (std::int64_t i = 0; i < N * K; ++i) w_q.set_code_linear(i, q.codes[i]);
  Tensor w_s;
  if (a.layout == quant::ScaleLayout::packed_ue8m0) {
    w_s = quant::make_scale_tensor(a.layout, N, KB);
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t kb = 0; kb < KB; ++kb) {
        const std::uint32_t byte = quant::scale_byte(kOp, q, static_cast<std::size_t>((n / gs) * KB + kb));
        const auto word = static_cast<std::uint32_t>(w_s.code({n, kb / 4}));
        w_s.set_code({n, kb / 4}, word | (byte << (8 * (kb % 4))));
      }
  } else {
    w_s = quant::make_scale_tensor(a.layout, NB, KB);
    for (std::int64_t i = 0; i < NB; ++i)
      for (std::int64_t kb = 0; kb < KB; ++kb) w_s.set({i, kb}, q.scales[static_cast<std::size_t>(i * KB + kb)]);
  }
  return {{"w_q", w_q}, {"w_s", w_s}};
}

}  // namespace dsv4::ops
