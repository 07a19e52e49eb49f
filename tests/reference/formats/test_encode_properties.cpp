// RapidCheck properties of the encoders over our own float32 bit-pattern generators (RapidCheck's float
// generator never makes NaN, Inf or subnormals): fast == reference, nearest-by-search over the decoded
// code table for RNE saturating modes (an independent third formulation), round trip, monotonicity and
// saturation bounds.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "reference/formats/encode.hpp"

using namespace dsv4::formats;

namespace {

const Format kGridFormats[] = {Format::e4m3fn, Format::e4m3fnuz, Format::e5m2, Format::e5m2fnuz, Format::bf16, Format::fp16};

// Float32 bit patterns: uniform bits (hits NaN payloads, huge and tiny values), specials, subnormals,
// and values next to a code of some format (near midpoints and the overflow band).
rc::Gen<std::uint32_t> gen_f32_bits() {
  return rc::gen::oneOf(
      rc::gen::arbitrary<std::uint32_t>(),
      rc::gen::element<std::uint32_t>(0x0u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                                      0xFFFFFFFFu, 0x7F7FFFFFu, 0x00000001u, 0x807FFFFFu),
      rc::gen::map(rc::gen::pair(rc::gen::inRange<std::uint32_t>(0, 0x800000u), rc::gen::arbitrary<bool>()),
                   [](const std::pair<std::uint32_t, bool>& p) { return p.first | (p.second ? 0x80000000u : 0u); }),
      rc::gen::map(rc::gen::tuple(rc::gen::inRange<int>(0, 6), rc::gen::inRange<std::uint32_t>(0, 256),
                                  rc::gen::inRange<int>(-3, 4), rc::gen::arbitrary<bool>()),
                   [](const std::tuple<int, std::uint32_t, int, bool>& t) {
                     const Format f = kGridFormats[std::get<0>(t)];
                     const std::uint32_t code = std::get<1>(t) % info(f).code_count();
                     const double v = decode(f, code);
                     const double next = decode(f, std::min(code + 1, info(f).code_count() - 1));
                     const double mid = std::isfinite(v) && std::isfinite(next) ? (v + next) / 2 : v;
                     std::uint32_t b = std::bit_cast<std::uint32_t>(static_cast<float>(std::get<3>(t) ? mid : v));
                     return b + static_cast<std::uint32_t>(std::get<2>(t));
                   }));
}

struct FormatMode {
  Format f;
  const char* mode;
};
const FormatMode kPairs[] = {
    {Format::e4m3fn, "rne-nonsat"}, {Format::e4m3fn, "rne-satfinite"}, {Format::e4m3fn, "hip-sw-precheck:nonsat"},
    {Format::e4m3fn, "hip-fast-clamp"}, {Format::e4m3fn, "rtz:sat"}, {Format::e4m3fnuz, "torch"},
    {Format::e4m3fnuz, "hip-sw-precheck:sat,hip=old"}, {Format::e5m2, "ml_dtypes"}, {Format::e5m2, "rne-sat-keepinf"},
    {Format::e5m2fnuz, "rne-satfinite"}, {Format::e8m0fnu, "torch"}, {Format::e8m0fnu, "e8m0-ceil:satfinite,neg=nan"},
    {Format::e8m0fnu, "e8m0-floor:zero=nan"}, {Format::e2m1fn, "fp4-ties-to-zero"}, {Format::e2m1fn, "fp4-rne-satfinite:nan=+-6"},
    {Format::bf16, "bf16-rne:nan=quiet-keep"}, {Format::bf16, "rtz:nonsat"}, {Format::fp16, "torch"},
};

// Sorted non-negative finite values of f with their codes.
const std::vector<std::pair<double, std::uint32_t>>& table(Format f) {
  static std::vector<std::pair<double, std::uint32_t>> t[8];
  auto& v = t[static_cast<int>(f)];
  if (v.empty()) {
    const std::uint32_t sign = 1u << (info(f).bits() - 1);
    for (std::uint32_t c = 0; c < info(f).code_count(); ++c)
      if (!(c & sign) && std::isfinite(decode(f, c))) v.push_back({decode(f, c), c});
    std::sort(v.begin(), v.end());
  }
  return v;
}

}  // namespace

RC_GTEST_PROP(EncodeProps, FastEqualsReference, ()) {
  const auto pair = *rc::gen::elementOf(std::vector<FormatMode>(std::begin(kPairs), std::end(kPairs)));
  const std::uint32_t b = *gen_f32_bits();
  const EncodeMode m = parse_mode(pair.mode);
  RC_ASSERT(FastEncoder(pair.f, m).from_bits(b) == encode_f32_bits_reference(pair.f, m, b));
}

RC_GTEST_PROP(EncodeProps, SatfiniteIsNearestBySearchOverTheCodeTable, ()) {
  const Format f = *rc::gen::elementOf(std::vector<Format>(std::begin(kGridFormats), std::end(kGridFormats)));
  const std::uint32_t b = *gen_f32_bits();
  const float x = std::bit_cast<float>(b);
  RC_PRE(!std::isnan(x));
  const std::uint32_t got = FastEncoder(f, parse_mode("rne-satfinite")).from_bits(b);
  // Independent: clamp |x| to max, binary-search the sorted table, pick the nearer (tie: even code).
  const auto& t = table(f);
  const double a = std::min(std::fabs(static_cast<double>(x)), max_finite(f));
  auto hi = std::lower_bound(t.begin(), t.end(), std::make_pair(a, 0u));
  std::uint32_t mag;
  if (hi == t.end()) mag = t.back().second;
  else if (hi->first == a || hi == t.begin()) mag = hi->second;
  else {
    const auto lo = hi - 1;
    const double dl = a - lo->first, dh = hi->first - a;
    mag = dl < dh ? lo->second : dh < dl ? hi->second : ((lo->second & 1) ? hi->second : lo->second);
  }
  const bool fnuz = info(f).kind == SpecialKind::fnuz;
  const std::uint32_t want = (std::signbit(x) && !(fnuz && mag == 0)) ? (mag | (1u << (info(f).bits() - 1))) : mag;
  RC_ASSERT(got == want);
}

RC_GTEST_PROP(EncodeProps, SaturatingModesStayWithinMax, ()) {
  const Format f = *rc::gen::elementOf(std::vector<Format>(std::begin(kGridFormats), std::end(kGridFormats)));
  const char* mode = *rc::gen::element("rne-satfinite", "hip-sw-precheck:sat", "rtz:sat", "rne-sat-keepinf");
  const std::uint32_t b = *gen_f32_bits();
  const float x = std::bit_cast<float>(b);
  if ((f == Format::bf16 || f == Format::fp16) && std::string(mode).rfind("hip", 0) == 0) return;  // fp8-only mode
  RC_PRE(!std::isnan(x));
  if (std::string(mode) != "rne-satfinite") RC_PRE(!std::isinf(x));  // sat (not satfinite) keeps Inf
  const double v = decode(f, FastEncoder(f, parse_mode(mode)).from_bits(b));
  RC_ASSERT(!std::isnan(v));
  RC_ASSERT(std::fabs(v) <= max_finite(f));
}

RC_GTEST_PROP(EncodeProps, MonotoneInTheInput, ()) {
  const auto pair = *rc::gen::elementOf(std::vector<FormatMode>(std::begin(kPairs), std::end(kPairs)));
  float x = std::bit_cast<float>(*gen_f32_bits()), y = std::bit_cast<float>(*gen_f32_bits());
  RC_PRE(std::isfinite(x) && std::isfinite(y));
  if (pair.f == Format::e8m0fnu) { x = std::fabs(x); y = std::fabs(y); RC_PRE(x > 0 && y > 0); }
  if (x > y) std::swap(x, y);
  const FastEncoder enc(pair.f, parse_mode(pair.mode));
  const double qx = decode(pair.f, enc(x)), qy = decode(pair.f, enc(y));
  // Overflow to the NaN code breaks order by design (nonsat); only compare non-NaN results.
  RC_PRE(!std::isnan(qx) && !std::isnan(qy));
  RC_ASSERT(qx <= qy);
}

RC_GTEST_PROP(EncodeProps, DecodeEncodeRoundTrip, ()) {
  const auto pair = *rc::gen::elementOf(std::vector<FormatMode>(std::begin(kPairs), std::end(kPairs)));
  const std::uint32_t c = *rc::gen::inRange<std::uint32_t>(0, info(pair.f).code_count());
  const double v = decode(pair.f, c);
  RC_PRE(!std::isnan(v));
  if (pair.f == Format::e2m1fn && std::string(pair.mode) == "fp4-ties-to-zero") RC_PRE(c != 0x8);  // -0 -> +0 by design
  if (pair.f == Format::e8m0fnu) RC_PRE(c != 0x00 || std::string(pair.mode) != "e8m0-floor:zero=nan");
  if (std::isinf(v)) RC_PRE(std::string(pair.mode).find("sat") == std::string::npos);
  RC_ASSERT(encode(pair.f, parse_mode(pair.mode), v) == c);
  RC_ASSERT(FastEncoder(pair.f, parse_mode(pair.mode))(static_cast<float>(decode_f32(pair.f, c))) == c);
}
