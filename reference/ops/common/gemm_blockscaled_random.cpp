// Random block scales; see gemm_blockscaled_random.hpp.
#include "reference/ops/common/gemm_blockscaled_random.hpp"

#include <cmath>

#include "reference/ops/common/quant_scale_layout.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::gemm {

Tensor random_block_scales(std::mt19937_64& rng, const std::string& form, std::int64_t rows, std::int64_t groups) {
  std::uniform_int_distribution<int> e(-12, -4);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  if (form == "fp32" || form == "fp32_mn_major") {
    Tensor t = quant::make_scale_tensor(form == "fp32" ? quant::ScaleLayout::row_major : quant::ScaleLayout::mn_major, rows, groups);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t g = 0; g < groups; ++g) t.set({i, g}, std::ldexp(u(rng), e(rng) + 2));
    return t;
  }
  if (form == "ue8m0") {
    Tensor t = Tensor::empty(DType::F8_E8M0, {rows, groups});
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set_code_linear(i, static_cast<std::uint64_t>(127 + e(rng)));
    return t;
  }
  if (form == "packed_ue8m0") {
    Tensor t = quant::make_scale_tensor(quant::ScaleLayout::packed_ue8m0, rows, groups);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t g = 0; g < groups; ++g)
        quant::store_scale(t, quant::ScaleLayout::packed_ue8m0, i, g, std::ldexp(1.0, e(rng)));
    return t;
  }
  throw InputError("unknown scale form '" + form + "' (fp32, fp32_mn_major, ue8m0, packed_ue8m0)");
}

}  // namespace dsv4::gemm
