// Exhaustive decode of every code of every format against an independent formula written here from
// formats.md §1 (sign * 2^(e-bias) * (1 + m/2^M), subnormals 2^(1-bias) * m/2^M, special codes by table),
// plus the e8m0 special bytes, FTZ behaviour of 2^-127, shift23 decoding and classification. The decode-only fp6
// formats (e2m3fn, e3m2fn) against the value lists of the OCP MX definition, written out binade by binade here.
#include <gtest/gtest.h>

#include <cfenv>
#include <cstring>
#include <string>
#include <cmath>
#include <limits>
#include <vector>
#include <xmmintrin.h>

#include "reference/formats/format.hpp"
#include "reference/formats/mode.hpp"
#include "reference/formats/rne.hpp"

using namespace dsv4::formats;

namespace {

struct Layout {
  Format f;
  int e, m, bias;
  const char* nan_rule;  // "fn", "fnuz", "ieee", "e8m0", "none"
};
const Layout kLayouts[] = {
    {Format::e4m3fn, 4, 3, 7, "fn"},     {Format::e4m3fnuz, 4, 3, 8, "fnuz"}, {Format::e5m2, 5, 2, 15, "ieee"},
    {Format::e5m2fnuz, 5, 2, 16, "fnuz"}, {Format::e8m0fnu, 8, 0, 127, "e8m0"}, {Format::e2m1fn, 2, 1, 1, "none"},
    {Format::bf16, 8, 7, 127, "ieee"},   {Format::fp16, 5, 10, 15, "ieee"},
};

// Independent value of a code: NaN, +-Inf, or the exact value.
double expected_value(const Layout& L, std::uint32_t code) {
  const std::string rule = L.nan_rule;
  if (rule == "e8m0") return code == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::pow(2.0, int(code) - 127);
  const int nbits = 1 + L.e + L.m;
  const bool neg = (code >> (nbits - 1)) & 1;
  const std::uint32_t ef = (code >> L.m) & ((1u << L.e) - 1), mf = code & ((1u << L.m) - 1);
  if (rule == "fnuz" && code == (1u << (nbits - 1))) return std::numeric_limits<double>::quiet_NaN();
  if (rule == "fn" && ef == (1u << L.e) - 1 && mf == (1u << L.m) - 1) return std::numeric_limits<double>::quiet_NaN();
  if (rule == "ieee" && ef == (1u << L.e) - 1) return mf ? std::numeric_limits<double>::quiet_NaN() : (neg ? -INFINITY : INFINITY);
  double mag = ef == 0 ? std::pow(2.0, 1 - L.bias) * (mf / std::pow(2.0, L.m))
                       : std::pow(2.0, int(ef) - L.bias) * (1 + mf / std::pow(2.0, L.m));
  return neg ? -mag : mag;
}

}  // namespace

TEST(Decode, EveryCodeOfEveryFormatMatchesTheFormula) {
  std::uint64_t checked = 0;
  for (const Layout& L : kLayouts) {
    const std::uint32_t n = info(L.f).code_count();
    ASSERT_EQ(n, 1u << (L.f == Format::e8m0fnu ? 8 : 1 + L.e + L.m));
    std::uint32_t nan_count = 0;
    for (std::uint32_t c = 0; c < n; ++c) {
      const double want = expected_value(L, c);
      const double got = decode(L.f, c);
      const float got32 = decode_f32(L.f, c);
      if (std::isnan(want)) {
        ++nan_count;
        EXPECT_TRUE(std::isnan(got)) << name(L.f) << " 0x" << std::hex << c;
        EXPECT_TRUE(std::isnan(got32)) << name(L.f) << " 0x" << std::hex << c;
        EXPECT_EQ(classify(L.f, c), CodeClass::nan);
      } else {
        EXPECT_EQ(got, want) << name(L.f) << " 0x" << std::hex << c;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << name(L.f) << " 0x" << std::hex << c;
        EXPECT_EQ(static_cast<double>(got32), want) << name(L.f) << " 0x" << std::hex << c;
        EXPECT_NE(classify(L.f, c), CodeClass::nan);
      }
      ++checked;
    }
    // NaN code counts from formats.md §1.
    const std::uint32_t want_nans = L.f == Format::e4m3fn ? 2 : L.f == Format::e5m2 ? 6 : L.f == Format::e8m0fnu ? 1
                                  : L.f == Format::e2m1fn ? 0 : (L.f == Format::bf16) ? 2 * 127 : L.f == Format::fp16 ? 2 * 1023 : 1;
    EXPECT_EQ(nan_count, want_nans) << name(L.f);
  }
  EXPECT_EQ(checked, 256u * 5 + 16 + 65536u * 2);
}

TEST(Decode, SpecialCodesNamedInTheIssue) {
  EXPECT_EQ(decode(Format::e8m0fnu, 0x00), std::ldexp(1.0, -127));
  EXPECT_TRUE(std::isnan(decode(Format::e8m0fnu, 0xFF)));
  EXPECT_TRUE(std::isnan(decode(Format::e4m3fnuz, 0x80)));
  EXPECT_TRUE(std::isnan(decode(Format::e5m2fnuz, 0x80)));
  EXPECT_EQ(decode(Format::e4m3fn, 0x80), 0.0);
  EXPECT_TRUE(std::signbit(decode(Format::e4m3fn, 0x80)));
  EXPECT_EQ(classify(Format::e4m3fnuz, 0x7F), CodeClass::normal);
  EXPECT_EQ(classify(Format::e5m2, 0x7C), CodeClass::infinity);
  EXPECT_EQ(classify(Format::e4m3fn, 0x01), CodeClass::subnormal);
  EXPECT_EQ(classify(Format::e2m1fn, 0x8), CodeClass::zero);
}

TEST(Decode, E8m0MinScaleSurvivesFlushToZero) {
  // 2^-127 is an fp32 subnormal; decode_f32 builds it from bits, so it must be 0x00400000 even with
  // FTZ/DAZ on (arithmetic on it would then flush to 0: formats.md §2).
  const unsigned old = _mm_getcsr();
  _mm_setcsr(old | 0x8040);  // FTZ | DAZ
  const float s = decode_f32(Format::e8m0fnu, 0x00);
  const float e = decode_e8m0(0x00, E8m0Decode::exact);
  _mm_setcsr(old);
  std::uint32_t bits, bits_e;
  std::memcpy(&bits, &s, 4);
  std::memcpy(&bits_e, &e, 4);
  EXPECT_EQ(bits, 0x00400000u);
  EXPECT_EQ(bits_e, 0x00400000u);
}

TEST(Decode, Shift23EmulatesTheFaultyDecoders) {
  // formats.md §2: exact for 0x01..0xFE, 0x00 -> +0.0, 0xFF -> +Inf.
  for (std::uint32_t b = 1; b < 0xFF; ++b)
    EXPECT_EQ(decode_e8m0(static_cast<std::uint8_t>(b), E8m0Decode::shift23), std::ldexp(1.0f, int(b) - 127)) << b;
  EXPECT_EQ(decode_e8m0(0x00, E8m0Decode::shift23), 0.0f);
  EXPECT_EQ(decode_e8m0(0xFF, E8m0Decode::shift23), INFINITY);
  EXPECT_TRUE(std::isnan(decode_e8m0(0xFF, E8m0Decode::exact)));
  EXPECT_EQ(parse_e8m0_decode("e8m0-shift23"), E8m0Decode::shift23);
  EXPECT_THROW(parse_e8m0_decode("shift24"), std::invalid_argument);
}

TEST(Decode, FnuzIsHalfOfFnOnTheSameBits) {
  // formats.md §1 same-bits identity, every code except 0x80, 0x7F, 0xFF.
  for (std::uint32_t b = 0; b < 256; ++b) {
    if (b == 0x80 || b == 0x7F || b == 0xFF) continue;
    EXPECT_EQ(decode(Format::e4m3fnuz, b), decode(Format::e4m3fn, b) / 2) << b;
    if ((b & 0x7C) != 0x7C) EXPECT_EQ(decode(Format::e5m2fnuz, b), decode(Format::e5m2, b) / 2) << b;
  }
}

// OCP MX v1.0 FP6: E2M3 (bias 1, 3 mantissa bits) and E3M2 (bias 3, 2 mantissa bits), sign in bit 5, no Inf and
// no NaN: all 64 codes are numbers. The 32 magnitudes of each, in code order: the subnormal binade (exponent field
// 0: m * 2^(1-bias) / 2^M), then each binade [2^(e-bias), 2^(e-bias+1)) in 2^M equal steps.
std::vector<double> ocp_fp6_magnitudes(double subnormal_step, int binades, double first_binade, int steps) {
  std::vector<double> v;
  for (int m = 0; m < steps; ++m) v.push_back(m * subnormal_step);
  for (int e = 0; e < binades; ++e) {
    const double lo = first_binade * std::ldexp(1.0, e);
    for (int m = 0; m < steps; ++m) v.push_back(lo + m * lo / steps);
  }
  return v;
}

TEST(Decode, Fp6EveryCodeMatchesTheOcpMxDefinition) {
  struct Case {
    Format f;
    std::vector<double> mags;
    double max, min_normal, min_subnormal;
  };
  // E2M3: subnormals 0.125 * m, binades 1, 2, 4 in 8 steps (max 7.5). E3M2: subnormals 0.0625 * m, binades
  // 0.25 .. 16 in 4 steps (max 28). Extremes as the OCP MX table lists them.
  const Case cases[] = {{Format::e2m3fn, ocp_fp6_magnitudes(0.125, 3, 1.0, 8), 7.5, 1.0, 0.125},
                        {Format::e3m2fn, ocp_fp6_magnitudes(0.0625, 7, 0.25, 4), 28.0, 0.25, 0.0625}};
  for (const Case& c : cases) {
    ASSERT_EQ(c.mags.size(), 32u);
    ASSERT_EQ(info(c.f).code_count(), 64u);
    EXPECT_EQ(c.mags[31], c.max);
    EXPECT_EQ(max_finite(c.f), c.max);
    EXPECT_EQ(decode(c.f, max_finite_code(c.f)), c.max);
    for (std::uint32_t code = 0; code < 64; ++code) {
      const double want = (code & 0x20 ? -1 : 1) * c.mags[code & 0x1F];
      EXPECT_EQ(decode(c.f, code), want) << name(c.f) << " 0x" << std::hex << code;
      EXPECT_EQ(std::signbit(decode(c.f, code)), (code & 0x20) != 0) << name(c.f) << " 0x" << std::hex << code;
      EXPECT_EQ(double(decode_f32(c.f, code)), want) << name(c.f) << " 0x" << std::hex << code;
      const double a = std::fabs(want);
      const CodeClass k = a == 0 ? CodeClass::zero : a < c.min_normal ? CodeClass::subnormal : CodeClass::normal;
      EXPECT_EQ(classify(c.f, code), k) << name(c.f) << " 0x" << std::hex << code;
    }
    EXPECT_EQ(decode(c.f, 0x01), c.min_subnormal);
    // decode-only: not in the CLI's list, and no encode mode takes them
    EXPECT_FALSE(parse_format(name(c.f)).has_value());
    EXPECT_THROW(resolve_mode(c.f, parse_mode("torch")), std::invalid_argument);
    EXPECT_THROW(resolve_mode(c.f, parse_mode("rne-satfinite")), std::invalid_argument);
  }
  EXPECT_EQ(name(Format::e2m3fn), "e2m3fn");
  EXPECT_EQ(name(Format::e3m2fn), "e3m2fn");
}
