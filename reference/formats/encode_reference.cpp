// Reference encoder: each mode's definition (formats.md §0, §3) applied to the exact float64 value.
// Deliberately written without any float32 bit tricks so that it is independent of encode_fast.cpp.
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "reference/formats/encode.hpp"
#include "reference/formats/rne.hpp"

namespace dsv4::formats {

namespace {

std::uint64_t double_bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The format's standard NaN code without sign (fn 0x7F, fnuz 0x80, e5m2 0x7F, bf16 0x7FC0, fp16 0x7E00).
std::uint32_t standard_nan(Format f) {
  switch (f) {
    case Format::e4m3fn: return 0x7F;
    case Format::e4m3fnuz: case Format::e5m2fnuz: return 0x80;
    case Format::e5m2: return 0x7F;
    case Format::bf16: return 0x7FC0;
    case Format::fp16: return 0x7E00;
    default: return 0;
  }
}

std::uint32_t encode_grid(Format f, const EncodeMode& m, double x) {
  const FormatInfo& fi = info(f);
  const bool neg = std::signbit(x);
  const std::uint32_t s = neg ? (1u << (fi.bits() - 1)) : 0u;
  const std::uint32_t maxc = max_finite_code(f);
  const bool fnuz = fi.kind == SpecialKind::fnuz;
  const bool ieee = fi.kind == SpecialKind::ieee;
  const std::uint32_t inf_code = ((1u << fi.exponent_bits) - 1) << fi.mantissa_bits;
  // "Inf or NaN" result of a non-saturating overflow: +-Inf where the format has it, else the NaN code
  // with the sign kept (fnuz has a single unsigned NaN).
  const std::uint32_t infnan = ieee ? (s | inf_code) : fnuz ? 0x80u : (s | standard_nan(f));
  const std::uint32_t maxed = s | maxc;

  if (std::isnan(x)) {
    if (m.kind == ModeKind::hip_sw_precheck && m.hip == HipHeaders::old && m.saturate && fnuz) return maxed;
    if (fnuz) return 0x80;
    switch (m.nan) {
      case NanPolicy::canonical_pos: return standard_nan(f);
      case NanPolicy::quiet_sign:
        return s | (f == Format::e5m2 ? 0x7Eu : standard_nan(f));
      case NanPolicy::quiet_keep: {
        const std::uint64_t b = double_bits(x);
        const int keep = fi.mantissa_bits;
        const std::uint32_t payload = static_cast<std::uint32_t>((b >> (52 - keep)) & ((1u << keep) - 1)) | 1u;
        return s | inf_code | payload;
      }
      default: return s | standard_nan(f);
    }
  }
  if (std::isinf(x)) {
    switch (m.kind) {
      case ModeKind::rne_satfinite: return maxed;
      case ModeKind::hip_sw_precheck:
        if (m.hip == HipHeaders::old && m.saturate) return maxed;
        return infnan;
      default: return infnan;  // rne-nonsat, rne-sat-keepinf, rtz (either), hip-fast-clamp (hw, FP16_OVFL=0), bf16-rne
    }
  }
  double a = std::fabs(x);
  if (m.kind == ModeKind::hip_sw_precheck && a > max_finite(f)) return m.saturate ? maxed : infnan;
  if (m.kind == ModeKind::hip_fast_clamp && a > max_finite(f)) a = max_finite(f);
  const RoundedMagnitude r = round_magnitude(f, a, m.kind == ModeKind::rtz ? RoundDir::toward_zero : RoundDir::nearest_even);
  if (r.overflow) {
    switch (m.kind) {
      case ModeKind::rne_satfinite: case ModeKind::rne_sat_keepinf: return maxed;
      case ModeKind::rtz: return m.saturate ? maxed : infnan;
      default: return infnan;
    }
  }
  if (r.magnitude_code == 0 && fnuz) return 0;  // fnuz has no -0
  return s | r.magnitude_code;
}

std::uint32_t encode_e8m0(const EncodeMode& m, double x) {
  if (std::isnan(x)) return 0xFF;
  if (x == 0) return m.zero == E8m0Zero::nan ? 0xFF : 0x00;
  if (x < 0) {
    if (m.neg == E8m0Neg::nan) return 0xFF;
    if (m.neg == E8m0Neg::min) return 0x00;
  }
  const double a = std::fabs(x);
  if (std::isinf(a)) return m.inf == E8m0Inf::max ? 0xFE : 0xFF;
  int k;
  std::frexp(a, &k);
  const int E = k - 1;  // a in [2^E, 2^(E+1))
  const double p = std::ldexp(1.0, E);
  int e = E;
  switch (m.kind) {
    case ModeKind::e8m0_nearest_tiesup:
      // Below 2^-126 the e8m0 grid point 0x00 acts as the lower neighbour with midpoint 2^-127 (c10,
      // ml_dtypes: (2^-127, 2^-126) -> 0x01, <= 2^-127 -> 0x00; formats.md §3.1).
      if (a < std::ldexp(1.0, -126)) return a > std::ldexp(1.0, -127) ? 0x01 : 0x00;
      e = a >= 1.5 * p ? E + 1 : E;
      break;
    case ModeKind::e8m0_ceil: e = a == p ? E : E + 1; break;
    case ModeKind::e8m0_floor: e = E; break;
    default: throw std::invalid_argument("encode_e8m0: not an e8m0 mode");
  }
  const int byte = e + 127;
  if (byte <= 0) return 0x00;  // clips at 2^-127
  if (byte >= 255) return m.saturate ? 0xFE : 0xFF;
  return static_cast<std::uint32_t>(byte);
}

std::uint32_t encode_fp4(const EncodeMode& m, double x) {
  const bool neg = std::signbit(x);
  if (m.kind == ModeKind::fp4_ties_to_zero) {
    if (std::isnan(x)) return 0x0;
    const double a = std::fmin(std::fabs(x), 6.0);
    const std::uint32_t c = round_magnitude(Format::e2m1fn, a, RoundDir::nearest_ties_to_zero).magnitude_code;
    return (neg && c != 0) ? (0x8 | c) : c;  // zero carries no sign
  }
  if (std::isnan(x)) {
    switch (m.nan) {
      case NanPolicy::fp4_pos6: return 0x7;
      case NanPolicy::fp4_signed6: return neg ? 0xF : 0x7;
      case NanPolicy::fp4_sign_inverted_zero: return neg ? 0x0 : 0x8;
      default: return 0x0;
    }
  }
  const std::uint32_t s = neg ? 0x8u : 0u;
  if (std::isinf(x)) return s | 0x7;
  const RoundedMagnitude r = round_magnitude(Format::e2m1fn, std::fabs(x), RoundDir::nearest_even);
  return s | (r.overflow ? 0x7u : r.magnitude_code);
}

}  // namespace

std::uint32_t encode(Format f, const EncodeMode& mode, double x) {
  if (mode.kind == ModeKind::torch) x = static_cast<double>(static_cast<float>(x));  // c10 takes a float
  const EncodeMode m = resolve_mode(f, mode);
  if (f == Format::e8m0fnu) return encode_e8m0(m, x);
  if (f == Format::e2m1fn) return encode_fp4(m, x);
  return encode_grid(f, m, x);
}

std::uint32_t encode_f32_bits_reference(Format f, const EncodeMode& mode, std::uint32_t b) {
  const bool nan = (b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu) != 0;
  if (nan && (f == Format::bf16 || f == Format::fp16)) {
    const EncodeMode m = resolve_mode(f, mode);
    if (m.nan == NanPolicy::quiet_keep) {
      const FormatInfo& fi = info(f);
      const std::uint32_t sign = (b >> 31) << (fi.bits() - 1);
      const std::uint32_t exp_all = ((1u << fi.exponent_bits) - 1) << fi.mantissa_bits;
      const std::uint32_t payload = ((b & 0x7FFFFFu) >> (23 - fi.mantissa_bits)) | 1u;
      return sign | exp_all | payload;
    }
  }
  float x;
  std::memcpy(&x, &b, sizeof x);
  return encode(f, mode, static_cast<double>(x));
}

}  // namespace dsv4::formats
