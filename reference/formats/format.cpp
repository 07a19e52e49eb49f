// Format table and exact decoding; see format.hpp.
#include "reference/formats/format.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace dsv4::formats {

namespace {
constexpr FormatInfo kInfo[] = {
    {"e4m3fn", 4, 3, 7, true, SpecialKind::fn},      {"e4m3fnuz", 4, 3, 8, true, SpecialKind::fnuz},
    {"e5m2", 5, 2, 15, true, SpecialKind::ieee},     {"e5m2fnuz", 5, 2, 16, true, SpecialKind::fnuz},
    {"e8m0fnu", 8, 0, 127, false, SpecialKind::e8m0}, {"e2m1fn", 2, 1, 1, true, SpecialKind::finite},
    {"bf16", 8, 7, 127, true, SpecialKind::ieee},    {"fp16", 5, 10, 15, true, SpecialKind::ieee},
    {"e2m3fn", 2, 3, 1, true, SpecialKind::finite},  {"e3m2fn", 3, 2, 3, true, SpecialKind::finite},
};
}  // namespace

const FormatInfo& info(Format f) { return kInfo[static_cast<int>(f)]; }
std::string_view name(Format f) { return info(f).name; }

std::optional<Format> parse_format(std::string_view n) {
  for (Format f : kAllFormats)
    if (name(f) == n) return f;
  return std::nullopt;
}

CodeClass classify(Format f, std::uint32_t code) {
  const FormatInfo& fi = info(f);
  if (code >= fi.code_count()) throw std::out_of_range("code out of range for format " + std::string(fi.name));
  const std::uint32_t mant_mask = (1u << fi.mantissa_bits) - 1;
  const std::uint32_t exp_mask = (1u << fi.exponent_bits) - 1;
  const std::uint32_t mag_mask = (1u << (fi.exponent_bits + fi.mantissa_bits)) - 1;
  const std::uint32_t mag = code & mag_mask;
  const std::uint32_t e = (code >> fi.mantissa_bits) & exp_mask;
  const std::uint32_t m = code & mant_mask;
  switch (fi.kind) {
    case SpecialKind::e8m0:
      return code == 0xFF ? CodeClass::nan : CodeClass::normal;
    case SpecialKind::fnuz:
      if (code == 0x80) return CodeClass::nan;
      break;
    case SpecialKind::fn:
      if (mag == mag_mask) return CodeClass::nan;
      break;
    case SpecialKind::ieee:
      if (e == exp_mask) return m == 0 ? CodeClass::infinity : CodeClass::nan;
      break;
    case SpecialKind::finite:
      break;
  }
  if (mag == 0) return CodeClass::zero;
  return e == 0 ? CodeClass::subnormal : CodeClass::normal;
}

std::string_view class_name(CodeClass c) {
  switch (c) {
    case CodeClass::zero: return "zero";
    case CodeClass::subnormal: return "subnormal";
    case CodeClass::normal: return "normal";
    case CodeClass::infinity: return "inf";
    case CodeClass::nan: return "nan";
  }
  return "?";
}

double decode(Format f, std::uint32_t code) {
  const FormatInfo& fi = info(f);
  const CodeClass c = classify(f, code);
  if (c == CodeClass::nan) return std::numeric_limits<double>::quiet_NaN();
  const bool neg = fi.has_sign && ((code >> (fi.bits() - 1)) & 1u);
  if (c == CodeClass::infinity) return neg ? -INFINITY : INFINITY;
  if (fi.kind == SpecialKind::e8m0) return std::ldexp(1.0, static_cast<int>(code) - 127);
  const std::uint32_t m = code & ((1u << fi.mantissa_bits) - 1);
  const std::uint32_t e = (code >> fi.mantissa_bits) & ((1u << fi.exponent_bits) - 1);
  double mag = e == 0 ? std::ldexp(static_cast<double>(m), 1 - fi.bias - fi.mantissa_bits)
                      : std::ldexp(static_cast<double>(m | (1u << fi.mantissa_bits)),
                                   static_cast<int>(e) - fi.bias - fi.mantissa_bits);
  return neg ? -mag : mag;
}

float decode_f32(Format f, std::uint32_t code) {
  if (f == Format::e8m0fnu && code == 0) {  // 2^-127 is an fp32 subnormal: build it from bits
    std::uint32_t bits = 0x00400000u;
    float r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
  }
  return static_cast<float>(decode(f, code));  // exact: every code is representable in fp32
}

double max_finite(Format f) {
  switch (f) {
    case Format::e4m3fn: return 448.0;
    case Format::e4m3fnuz: return 240.0;
    case Format::e5m2: return 57344.0;
    case Format::e5m2fnuz: return 57344.0;
    case Format::e8m0fnu: return std::ldexp(1.0, 127);
    case Format::e2m1fn: return 6.0;
    case Format::bf16: return decode(f, 0x7F7F);
    case Format::fp16: return 65504.0;
    case Format::e2m3fn: return 7.5;
    case Format::e3m2fn: return 28.0;
  }
  return 0;
}

}  // namespace dsv4::formats
