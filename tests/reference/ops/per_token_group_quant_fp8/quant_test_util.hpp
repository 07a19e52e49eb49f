// Test helpers for the quant-op tests: independent decode of a scale (row, group) from any of the
// three layouts, and the per-element round-trip bound of an fp8 quantization with scale s.
#pragma once
#include <cmath>
#include <cstdint>

#include "reference/tensor/tensor.hpp"

namespace dsv4::test {

inline double layout_scale(const Tensor& sf, std::int64_t row, std::int64_t g) {
  if (sf.dtype() == DType::F32) return sf.get({row, g});
  const std::uint32_t w = static_cast<std::uint32_t>(sf.code({row, g / 4}));
  const std::uint32_t byte = (w >> (8 * (g % 4))) & 0xFF;
  return byte == 0xFF ? std::nan("") : std::ldexp(1.0, static_cast<int>(byte) - 127);
}

// |x − decode(q)·s| for RNE onto e4m3 (3 mantissa bits): half an ulp, i.e. ≤ 2^-4·|x| for normals and
// s·2^-10 (fn) / s·2^-11 (fnuz) for subnormals.
inline double quant_bound(double x, double s) { return std::ldexp(std::fabs(x), -4) + s * std::ldexp(1.0, -10); }

}  // namespace dsv4::test
