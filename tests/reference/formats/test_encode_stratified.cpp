// Fast stratified encode test (default label): every rounding midpoint of every format and its +-1 ulp
// float32 neighbours (both signs), the overflow band, +-0, +-Inf, NaN payloads of both signs and float32
// subnormals, under every mode family. Two checks per input:
//  1. the fast encoder equals the reference encoder;
//  2. at midpoints and neighbours of positive values, the result is the grid neighbour that the mode's
//     rounding rule picks, computed here from the sorted code table (RNE: the even code; ties-up,
//     ceil: upper; floor, rtz, ties-to-zero: lower) - a rule independent of both encoders.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "reference/formats/encode.hpp"

using namespace dsv4::formats;

namespace {

struct ModeCase {
  Format f;
  const char* mode;
  enum Tie { even, upper, lower } tie;
  bool nearest;  // neighbours of a midpoint go to the nearer code; else lower (floor/rtz) or upper (ceil)
};

const ModeCase kModes[] = {
    {Format::e4m3fn, "rne-nonsat", ModeCase::even, true},       {Format::e4m3fn, "rne-satfinite", ModeCase::even, true},
    {Format::e4m3fn, "rne-sat-keepinf", ModeCase::even, true},  {Format::e4m3fn, "hip-sw-precheck:nonsat", ModeCase::even, true},
    {Format::e4m3fn, "hip-sw-precheck:sat", ModeCase::even, true}, {Format::e4m3fn, "hip-fast-clamp", ModeCase::even, true},
    {Format::e4m3fn, "rtz:nonsat", ModeCase::lower, false},     {Format::e4m3fn, "rtz:sat", ModeCase::lower, false},
    {Format::e4m3fn, "torch", ModeCase::even, true},            {Format::e4m3fn, "ml_dtypes", ModeCase::even, true},
    {Format::e4m3fn, "rne-satfinite:nan=canonical-pos", ModeCase::even, true},
    {Format::e4m3fnuz, "rne-nonsat", ModeCase::even, true},     {Format::e4m3fnuz, "rne-satfinite", ModeCase::even, true},
    {Format::e4m3fnuz, "hip-sw-precheck:sat,hip=old", ModeCase::even, true}, {Format::e4m3fnuz, "hip-fast-clamp", ModeCase::even, true},
    {Format::e4m3fnuz, "rtz:sat", ModeCase::lower, false},
    {Format::e5m2, "torch", ModeCase::even, true},              {Format::e5m2, "ml_dtypes", ModeCase::even, true},
    {Format::e5m2, "rne-satfinite", ModeCase::even, true},      {Format::e5m2, "rne-sat-keepinf", ModeCase::even, true},
    {Format::e5m2, "hip-sw-precheck:nonsat", ModeCase::even, true}, {Format::e5m2, "rtz:nonsat", ModeCase::lower, false},
    {Format::e5m2fnuz, "rne-nonsat", ModeCase::even, true},     {Format::e5m2fnuz, "rne-satfinite", ModeCase::even, true},
    {Format::e5m2fnuz, "hip-sw-precheck:nonsat", ModeCase::even, true},
    {Format::e8m0fnu, "torch", ModeCase::upper, true},          {Format::e8m0fnu, "ml_dtypes", ModeCase::upper, true},
    {Format::e8m0fnu, "e8m0-nearest-tiesup:satfinite,zero=min,neg=min", ModeCase::upper, true},
    {Format::e8m0fnu, "e8m0-ceil", ModeCase::upper, false},     {Format::e8m0fnu, "e8m0-ceil:satfinite", ModeCase::upper, false},
    {Format::e8m0fnu, "e8m0-floor", ModeCase::lower, false},    {Format::e8m0fnu, "e8m0-floor:satfinite,zero=nan,neg=nan", ModeCase::lower, false},
    {Format::e2m1fn, "ml_dtypes", ModeCase::even, true},        {Format::e2m1fn, "fp4-rne-satfinite:nan=+6", ModeCase::even, true},
    {Format::e2m1fn, "fp4-rne-satfinite:nan=+-6", ModeCase::even, true}, {Format::e2m1fn, "fp4-rne-satfinite:nan=+0", ModeCase::even, true},
    {Format::e2m1fn, "fp4-ties-to-zero", ModeCase::lower, true},
    {Format::bf16, "torch", ModeCase::even, true},              {Format::bf16, "ml_dtypes", ModeCase::even, true},
    {Format::bf16, "bf16-rne:nan=quiet-keep", ModeCase::even, true}, {Format::bf16, "rne-satfinite", ModeCase::even, true},
    {Format::bf16, "rtz:nonsat", ModeCase::lower, false},
    {Format::fp16, "torch", ModeCase::even, true},              {Format::fp16, "rne-satfinite", ModeCase::even, true},
    {Format::fp16, "rtz:sat", ModeCase::lower, false},
};

std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

struct Grid {
  std::vector<std::pair<double, std::uint32_t>> pos;  // non-negative finite values (+0 first), sorted
};

Grid grid_of(Format f) {
  Grid g;
  const std::uint32_t sign = f == Format::e8m0fnu ? 0 : 1u << (info(f).bits() - 1);
  for (std::uint32_t c = 0; c < info(f).code_count(); ++c) {
    if (c & sign) continue;
    const double v = decode(f, c);
    if (std::isfinite(v)) g.pos.push_back({v, c});
  }
  std::sort(g.pos.begin(), g.pos.end());
  return g;
}

}  // namespace

TEST(EncodeStratified, MidpointsNeighboursOverflowSpecialsAndSubnormals) {
  std::uint64_t compared = 0, rule_checked = 0;
  for (const ModeCase& mc : kModes) {
    const EncodeMode m = parse_mode(mc.mode);
    const FastEncoder fast(mc.f, m);
    const Grid g = grid_of(mc.f);
    std::vector<std::uint32_t> inputs;
    auto add_with_neighbours = [&](float x) {
      const std::uint32_t b = bits_of(x);
      for (std::uint32_t s : {0u, 0x80000000u})
        for (std::uint32_t v : {b - 1, b, b + 1}) inputs.push_back(s | (v & 0x7FFFFFFFu));
    };
    for (std::size_t i = 0; i + 1 < g.pos.size(); ++i) {
      const double lo = g.pos[i].first, hi = g.pos[i + 1].first;
      const double mid = (lo + hi) / 2;
      const float midf = static_cast<float>(mid);
      if (static_cast<double>(midf) != mid || midf == 0) continue;  // not representable (only below fp32 range)
      add_with_neighbours(midf);
      add_with_neighbours(static_cast<float>(lo));
      // The hand rule on the positive midpoint and its neighbours.
      const bool skip_rule = mc.f == Format::e8m0fnu && lo < std::ldexp(1.0, -126);  // e8m0 special low range
      if (skip_rule || (std::string(mc.mode).rfind("hip-sw-precheck", 0) == 0 && hi > max_finite(mc.f))) continue;
      const std::uint32_t clo = g.pos[i].second, chi = g.pos[i + 1].second;
      std::uint32_t at_tie = mc.tie == ModeCase::upper ? chi : mc.tie == ModeCase::lower ? clo : ((clo & 1) ? chi : clo);
      if (mc.f == Format::e8m0fnu && mc.tie == ModeCase::upper && !mc.nearest) at_tie = chi;  // ceil
      const std::uint32_t below = mc.nearest ? clo : (mc.tie == ModeCase::upper ? chi : clo);
      const std::uint32_t above = mc.nearest ? chi : (mc.tie == ModeCase::upper ? chi : clo);
      EXPECT_EQ(fast(midf), at_tie) << name(mc.f) << " " << mc.mode << " midpoint " << mid;
      EXPECT_EQ(fast(std::bit_cast<float>(bits_of(midf) - 1)), below) << name(mc.f) << " " << mc.mode << " below " << mid;
      EXPECT_EQ(fast(std::bit_cast<float>(bits_of(midf) + 1)), above) << name(mc.f) << " " << mc.mode << " above " << mid;
      rule_checked += 3;
    }
    // Overflow band: max, the midpoint past max (max + half the last step), 2*max, FLT_MAX.
    const double mx = max_finite(mc.f);
    const double step = mx - g.pos[g.pos.size() - 2].first;
    for (double v : {mx, mx + step / 2, mx + step, 2 * mx, 1e6, 65536.0, 61440.0, 464.0, 480.0, 248.0, 256.0})
      if (v < 3.4e38) add_with_neighbours(static_cast<float>(v));
    add_with_neighbours(std::bit_cast<float>(0x7F7FFFFFu));
    // Specials: +-0, +-Inf, NaN payloads of both signs.
    for (std::uint32_t b : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7F800001u, 0x7FC00000u, 0x7FFFFFFFu,
                            0xFFC00000u, 0xFF800001u, 0xFFFFFFFFu, 0x7FA00000u, 0xFFBFFFFFu})
      inputs.push_back(b);
    // float32 subnormals: the edges and a stride through all of them, both signs.
    for (std::uint32_t b = 1; b < 0x800000u; b += 4099) { inputs.push_back(b); inputs.push_back(b | 0x80000000u); }
    for (std::uint32_t b : {1u, 2u, 0x3FFFFFu, 0x400000u, 0x400001u, 0x7FFFFFu, 0x800000u}) {
      inputs.push_back(b);
      inputs.push_back(b | 0x80000000u);
    }
    for (std::uint32_t b : inputs) {
      const std::uint32_t want = encode_f32_bits_reference(mc.f, m, b);
      ASSERT_EQ(fast.from_bits(b), want) << name(mc.f) << " " << mc.mode << " input bits 0x" << std::hex << b;
    }
    compared += inputs.size();
  }
  EXPECT_GT(compared, 500000u);
  EXPECT_GT(rule_checked, 100000u);
  std::printf("[ stratified ] %llu inputs compared, %llu rounding-rule checks\n", static_cast<unsigned long long>(compared),
              static_cast<unsigned long long>(rule_checked));
}

TEST(EncodeStratified, Fp32SubnormalsGiveZeroInFp8AndFp4) {
  // formats.md §8.6: every float32 subnormal encodes to zero in the fp8 and fp4 formats.
  for (Format f : {Format::e4m3fn, Format::e4m3fnuz, Format::e5m2, Format::e5m2fnuz}) {
    const FastEncoder enc(f, parse_mode("rne-nonsat"));
    for (std::uint32_t b = 1; b < 0x800000u; b += 1021) {
      EXPECT_EQ(enc.from_bits(b), 0u);
      const std::uint32_t neg = enc.from_bits(b | 0x80000000u);
      EXPECT_EQ(neg, info(f).kind == SpecialKind::fnuz ? 0u : 0x80u);
    }
  }
  const FastEncoder fp4(Format::e2m1fn, parse_mode("ml_dtypes"));
  EXPECT_EQ(fp4.from_bits(0x00000001u), 0x0u);
  EXPECT_EQ(fp4.from_bits(0x80000001u), 0x8u);
}
