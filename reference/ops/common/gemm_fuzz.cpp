// Fuzz helpers of the block-scaled fp8 GEMM ops; see gemm_fuzz.hpp.
#include "reference/ops/common/gemm_fuzz.hpp"

#include "reference/ops/common/fuzz_draw.hpp"

namespace dsv4::ops {

using namespace draw;

// E8M0 extremes on the activation side: row r0 gets scale byte 0x00 (2^-127, x left normal), row r1
// gets 0xFE (2^127) with its fp8 codes zeroed, so every exact product stays finite.
void e8m0_extremes(OpCase& c, std::mt19937_64& rng) {
  Tensor& xs = c.inputs.at("x_sf");
  if (xs.dtype() != DType::F8_E8M0 && xs.dtype() != DType::I32) return;
  Tensor& x = c.inputs.at("x");
  const std::int64_t rows = xs.size(0);
  const std::int64_t r0 = uniform(rng, 0, rows - 1), r1 = uniform(rng, 0, rows - 1);
  set_e8m0_row(xs, r0, 0x00);
  if (r1 != r0) {
    set_e8m0_row(xs, r1, 0xFE);
    Tensor xr = x.select(0, r1);
    for (std::int64_t i = 0; i < xr.numel(); ++i) xr.set_code_linear(i, 0);
  }
}

void zero_rows(Tensor& x, std::mt19937_64& rng) {
  for (std::int64_t r = 0; r < x.size(0); ++r)
    if (coin(rng, 0.2)) {
      Tensor xr = x.select(0, r);
      for (std::int64_t i = 0; i < xr.numel(); ++i) xr.set_code_linear(i, 0);
    }
}

void blockscaled_specials(OpCase& c, const Json&, std::mt19937_64& rng) {
  zero_rows(c.inputs.at("w"), rng);
  e8m0_extremes(c, rng);
}

}  // namespace dsv4::ops
