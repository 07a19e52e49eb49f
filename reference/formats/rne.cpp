// Exact round-to-nearest-even onto a format grid; see rne.hpp.
#include "reference/formats/rne.hpp"

#include <cmath>
#include <stdexcept>
#include <algorithm>
#include <string>

namespace dsv4::formats {

std::uint32_t max_finite_code(Format f) {
  switch (f) {
    case Format::e4m3fn: return 0x7E;
    case Format::e4m3fnuz: return 0x7F;
    case Format::e5m2: return 0x7B;
    case Format::e5m2fnuz: return 0x7F;
    case Format::e8m0fnu: return 0xFE;
    case Format::e2m1fn: return 0x7;
    case Format::bf16: return 0x7F7F;
    case Format::fp16: return 0x7BFF;
    case Format::e2m3fn: return 0x1F;
    case Format::e3m2fn: return 0x1F;
  }
  return 0;
}

RoundedMagnitude round_magnitude(Format f, double a, bool truncate) {
  return round_magnitude(f, a, truncate ? RoundDir::toward_zero : RoundDir::nearest_even);
}

RoundedMagnitude round_magnitude(Format f, double a, RoundDir dir) {
  const FormatInfo& fi = info(f);
  if (f == Format::e8m0fnu) throw std::invalid_argument("round_magnitude: e8m0 has its own rounding modes");
  if (!(a >= 0) || std::isinf(a)) throw std::invalid_argument("round_magnitude: needs a finite |x|");
  if (a == 0) return {0, false};
  int k;
  std::frexp(a, &k);  // a in [2^(k-1), 2^k)
  int E = k - 1;
  const int emin = 1 - fi.bias;
  const int emax_field = (1 << fi.exponent_bits) - 1;
  if (E + fi.bias > emax_field + 1) return {max_finite_code(f) + 1, true};  // far beyond any code
  const int qexp = (E < emin ? emin : E) - fi.mantissa_bits;               // quantum 2^qexp
  const double n = std::ldexp(a, -qexp);                                    // exact
  const double fl = std::floor(n), diff = n - fl;  // exact: n has at most 53 significant bits
  double r = fl;
  switch (dir) {
    case RoundDir::toward_zero: r = fl; break;
    case RoundDir::nearest_even: r = diff > 0.5 ? fl + 1 : diff < 0.5 ? fl : (std::fmod(fl, 2.0) == 0 ? fl : fl + 1); break;
    case RoundDir::nearest_ties_to_zero: r = diff > 0.5 ? fl + 1 : fl; break;
    case RoundDir::nearest_ties_away: r = diff >= 0.5 ? fl + 1 : fl; break;
  }
  std::uint64_t code;
  if (E < emin) {
    code = static_cast<std::uint64_t>(r);  // subnormal mantissa; r == 2^m becomes the min normal
  } else {
    const std::uint64_t be = static_cast<std::uint64_t>(E + fi.bias);
    code = (be << fi.mantissa_bits) + (static_cast<std::uint64_t>(r) - (1ull << fi.mantissa_bits));
  }
  const std::uint32_t maxc = max_finite_code(f);
  if (code > maxc) return {static_cast<std::uint32_t>(std::min<std::uint64_t>(code, 0xFFFFFFFFu)), true};
  return {static_cast<std::uint32_t>(code), false};
}

std::uint32_t encode_ieee_rne(Format f, double x) {
  const FormatInfo& fi = info(f);
  if (fi.kind != SpecialKind::ieee) throw std::invalid_argument("encode_ieee_rne: " + std::string(fi.name) + " is not an IEEE-style format");
  const int nbits = fi.bits();
  const std::uint32_t sign = std::signbit(x) ? (1u << (nbits - 1)) : 0u;
  const std::uint32_t inf = ((1u << fi.exponent_bits) - 1) << fi.mantissa_bits;
  if (std::isnan(x)) return sign | inf | (1u << (fi.mantissa_bits - 1));
  if (std::isinf(x)) return sign | inf;
  RoundedMagnitude r = round_magnitude(f, std::fabs(x));
  return sign | (r.overflow ? inf : r.magnitude_code);
}

}  // namespace dsv4::formats
