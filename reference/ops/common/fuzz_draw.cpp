// Drawing helpers of the fuzz spaces; see fuzz_draw.hpp.
#include "reference/ops/common/fuzz_draw.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/formats/format.hpp"
#include "reference/ops/common/quant_fp8_encode.hpp"

namespace dsv4::draw {

std::int64_t align_edge(std::mt19937_64& rng, std::int64_t align, std::int64_t max_mult, std::int64_t delta,
                        std::int64_t lo) {
  const std::int64_t m = uniform(rng, 1, std::max<std::int64_t>(1, max_mult)) * align;
  return std::max(lo, m + uniform(rng, -1, 1) * delta);
}

bool is_value_dtype(DType t) {
  return t == DType::F64 || t == DType::F32 || (format_of(t).has_value() && t != DType::F8_E8M0);
}

double max_finite_of(DType t) {
  if (t == DType::F64) return std::numeric_limits<double>::max();
  if (t == DType::F32) return std::numeric_limits<float>::max();
  return formats::max_finite(*format_of(t));
}

void store(Tensor& t, std::int64_t i, double v) {
  if (t.dtype() == DType::F32 || t.dtype() == DType::F16 || t.dtype() == DType::BF16 || t.dtype() == DType::F64) {
    const double mx = max_finite_of(t.dtype());
    t.set_linear(i, std::isfinite(v) ? std::clamp(v, -mx, mx) : v);
  } else {
    t.set_code_linear(i, quant::encode_fp8_satfinite(*format_of(t.dtype()), v));
  }
}

void set_e8m0_row(Tensor& s, std::int64_t row, std::uint8_t byte) {
  if (s.dim() < 1 || row >= s.size(0)) return;
  Tensor r = s.select(0, row);
  for (std::int64_t i = 0; i < r.numel(); ++i) {
    if (s.dtype() == DType::F8_E8M0) {
      r.set_code_linear(i, byte);
    } else if (s.dtype() == DType::I32) {
      const std::uint32_t b = byte;
      r.set_code_linear(i, b | (b << 8) | (b << 16) | (b << 24));
    }
  }
}

}  // namespace dsv4::draw
