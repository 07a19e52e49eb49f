// Tests of reference/formats/rne_fast.hpp: the bit-level bf16/fp16 RNE against the definition
// (encode_ieee_rne, rne.hpp) on every code's value, every midpoint between neighbouring codes (the
// ties), the two float64 neighbours of each midpoint and of each code, the overflow threshold, the
// subnormal range, NaN/Inf/±0, and random doubles over the whole float64 exponent range; and
// bf16_to_double against decode() on every code.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reference/formats/format.hpp"
#include "reference/formats/rne.hpp"
#include "reference/formats/rne_fast.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::formats {
namespace {

using FastFn = std::uint16_t (*)(double);

// Compares fast and reference on x; returns false (after one gtest failure) on the first mismatch.
bool same(Format f, FastFn fast, double x) {
  const std::uint32_t want = encode_ieee_rne(f, x);
  const std::uint32_t got = fast(x);
  EXPECT_EQ(got, want) << name(f) << " x = " << std::hexfloat << x << " (bits 0x" << std::hex
                       << std::bit_cast<std::uint64_t>(x) << ")";
  return got == want;
}

// Every non-negative finite code c: c's value, the midpoint to c+1 (a tie), and the float64
// neighbours of both; with both signs. Returns the number of inputs checked.
std::int64_t sweep_codes(Format f, FastFn fast) {
  const FormatInfo& fi = info(f);
  const std::uint32_t max_code = max_finite_code(f);
  std::int64_t n = 0;
  for (std::uint32_t c = 0; c <= max_code; ++c) {
    const double v = decode(f, c);
    // The next grid point above v: c+1, or the overflow threshold's grid point 2^(emax+1) for max_code.
    const double next = c < max_code ? decode(f, c + 1) : std::ldexp(1.0, fi.bias + 1);
    const double mid = v + (next - v) / 2;  // exact: both are short binary fractions
    const double inf = std::numeric_limits<double>::infinity();
    for (double x : {v, std::nextafter(v, inf), std::nextafter(v, -inf), mid, std::nextafter(mid, inf),
                     std::nextafter(mid, -inf)}) {
      for (double s : {x, -x}) {
        ++n;
        if (!same(f, fast, s)) return n;
      }
    }
  }
  return n;
}

// Random doubles: a random exponent in [lo, hi], a random 52-bit mantissa, a random sign.
void sweep_random(Format f, FastFn fast, int lo, int hi, int count) {
  auto rng = test::rng_for_current_test();
  std::uniform_int_distribution<int> e(lo, hi);
  for (int i = 0; i < count; ++i) {
    const std::uint64_t mant = rng() & ((std::uint64_t{1} << 52) - 1);
    const std::uint64_t bits = (static_cast<std::uint64_t>(e(rng) + 1023) << 52) | mant | (rng() & (1ull << 63));
    if (!same(f, fast, std::bit_cast<double>(bits))) return;
  }
}

void specials(Format f, FastFn fast) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(),
                   -std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::signaling_NaN(),
                   std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min()})
    same(f, fast, x);
  // A NaN with a payload in the low bits only (dropped by a naive shift) stays NaN.
  same(f, fast, std::bit_cast<double>(0x7FF0000000000001ull));
  same(f, fast, std::bit_cast<double>(0xFFF0000000000001ull));
}

TEST(RneFast, Bf16MatchesDefinitionOnEveryCodeAndTie) {
  EXPECT_EQ(sweep_codes(Format::bf16, bf16_rne), 0x7F80 * 12);
}

TEST(RneFast, Fp16MatchesDefinitionOnEveryCodeAndTie) {
  EXPECT_EQ(sweep_codes(Format::fp16, fp16_rne), 0x7C00 * 12);
}

TEST(RneFast, Bf16MatchesDefinitionOnRandomDoubles) {
  sweep_random(Format::bf16, bf16_rne, -1022, 1023, 1 << 20);  // every float64 binade, normal inputs
  sweep_random(Format::bf16, bf16_rne, -140, -120, 1 << 18);   // around bf16's subnormal range
  sweep_random(Format::bf16, bf16_rne, 120, 130, 1 << 18);     // around overflow
  specials(Format::bf16, bf16_rne);
}

TEST(RneFast, Fp16MatchesDefinitionOnRandomDoubles) {
  sweep_random(Format::fp16, fp16_rne, -1022, 1023, 1 << 20);
  sweep_random(Format::fp16, fp16_rne, -30, -10, 1 << 18);
  sweep_random(Format::fp16, fp16_rne, 10, 20, 1 << 18);
  specials(Format::fp16, fp16_rne);
}

TEST(RneFast, Bf16HandPickedTies) {
  // 1 + 2^-8 lies halfway between 1 (0x3F80, even) and 1 + 2^-7 (0x3F81): ties to even -> 0x3F80.
  EXPECT_EQ(bf16_rne(1.0 + 0x1p-8), 0x3F80);
  // 1 + 3·2^-8 lies halfway between 0x3F81 (odd) and 0x3F82 (even) -> 0x3F82.
  EXPECT_EQ(bf16_rne(1.0 + 3 * 0x1p-8), 0x3F82);
  // Halfway between the largest finite (0x7F7F, odd) and 2^128 rounds to even: Inf.
  EXPECT_EQ(bf16_rne(-(0x1.FEp127 + 0x1p119)), 0xFF80);
  // Half the smallest subnormal (2^-134) ties to 0; three halves ties to 2 subnormal quanta.
  EXPECT_EQ(bf16_rne(0x1p-134), 0x0000);
  EXPECT_EQ(bf16_rne(3 * 0x1p-134), 0x0002);
}

TEST(RneFast, Bf16ToDoubleMatchesDecodeOnEveryCode) {
  for (std::uint32_t c = 0; c < 0x10000; ++c) {
    const double want = decode(Format::bf16, c), got = bf16_to_double(static_cast<std::uint16_t>(c));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << c;
    } else {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want)) << std::hex << c;
    }
  }
}

}  // namespace
}  // namespace dsv4::formats
