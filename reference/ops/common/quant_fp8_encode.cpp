// fp8 satfinite encode and exact UE8M0 maps; see quant_fp8_encode.hpp.
#include "reference/ops/common/quant_fp8_encode.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reference/formats/rne.hpp"

namespace dsv4::quant {

std::uint32_t encode_fp8_satfinite(formats::Format f, double x) {
  const formats::FormatInfo& fi = formats::info(f);
  const bool fnuz = fi.kind == formats::SpecialKind::fnuz;
  const std::uint32_t sign_bit = 1u << (fi.bits() - 1);
  const bool neg = std::signbit(x);
  if (std::isnan(x)) return fnuz ? sign_bit : ((sign_bit - 1) | (neg ? sign_bit : 0u));  // fn: 0x7F|s
  std::uint32_t mag;
  if (std::isinf(x)) {
    mag = formats::max_finite_code(f);
  } else {
    const formats::RoundedMagnitude r = formats::round_magnitude(f, std::fabs(x));
    mag = r.overflow ? formats::max_finite_code(f) : r.magnitude_code;
  }
  if (fnuz && mag == 0) return 0;
  return mag | (neg ? sign_bit : 0u);
}

double decode_ue8m0(std::uint8_t b) {
  if (b == 0xFF) return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, static_cast<int>(b) - 127);
}

bool is_pow2(double s) {
  if (!(s > 0) || std::isinf(s)) return false;
  int e;
  return std::frexp(s, &e) == 0.5;
}

std::uint8_t ue8m0_byte_of_pow2(double s) {
  if (!is_pow2(s)) throw std::invalid_argument("UE8M0 scale must be an exact power of two, got " + std::to_string(s));
  int e;
  std::frexp(s, &e);
  const int exp2 = e - 1;
  if (exp2 < -127 || exp2 > 127)
    throw std::invalid_argument("UE8M0 scale 2^" + std::to_string(exp2) + " is outside [2^-127, 2^127]");
  return static_cast<std::uint8_t>(exp2 + 127);
}

}  // namespace dsv4::quant
