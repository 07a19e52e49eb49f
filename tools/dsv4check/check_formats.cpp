// `dsv4check check` rows for the number formats: per format, every code decoded (value and class agree
// with the fp32 decode), round trip decode -> encode under the format's round-trip modes (reference and
// fast encoder), and the hand-derived tables of formats.md §1, §3-§4 (reference/formats/spot_tables.cpp).
#include <bit>
#include <cmath>
#include <string>

#include "reference/formats/encode.hpp"
#include "reference/formats/spot_tables.hpp"
#include "tools/dsv4check/check_table.hpp"

namespace dsv4::cli {
namespace {

using namespace dsv4::formats;

std::string hex(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// Modes under which every non-NaN code must encode back to itself.
std::vector<const char*> roundtrip_modes(Format f) {
  switch (f) {
    case Format::e8m0fnu: return {"torch", "e8m0-ceil:satfinite", "e8m0-floor"};
    case Format::e2m1fn: return {"ml_dtypes", "fp4-rne-satfinite:nan=+6"};
    case Format::bf16: return {"torch", "ml_dtypes"};
    case Format::fp16: return {"torch", "rne-satfinite"};
    default: return {"torch", "ml_dtypes", "rne-satfinite", "rne-sat-keepinf", "hip-sw-precheck:sat", "hip-fast-clamp", "rtz:nonsat"};
  }
}

SelfCheckResult check_format(Format f) {
  SelfCheckResult r;
  const std::uint32_t n = info(f).code_count();
  std::uint64_t decoded = 0, roundtrips = 0, spots = 0;
  for (std::uint32_t c = 0; c < n; ++c) {
    const double v = decode(f, c);
    const float v32 = decode_f32(f, c);
    const CodeClass k = classify(f, c);
    const bool nan_ok = std::isnan(v) == (k == CodeClass::nan) && std::isnan(v32) == std::isnan(v);
    const bool val_ok = std::isnan(v) || (static_cast<double>(v32) == v && std::signbit(v32) == std::signbit(v));
    const bool class_ok =
        std::isnan(v) || ((k == CodeClass::zero) == (v == 0) && (k == CodeClass::infinity) == std::isinf(v));
    if (!nan_ok || !val_ok || !class_ok) r.fail("decode " + hex(c) + " inconsistent (value/class/fp32)");
    ++decoded;
  }
  for (const char* ms : roundtrip_modes(f)) {
    const EncodeMode m = parse_mode(ms);
    const FastEncoder fast(f, m);
    for (std::uint32_t c = 0; c < n; ++c) {
      if (classify(f, c) == CodeClass::nan) continue;
      // rne-satfinite sends +-Inf to +-max by definition (formats.md §0): no round trip for Inf codes.
      if (classify(f, c) == CodeClass::infinity && m.kind == ModeKind::rne_satfinite) continue;
      const double v = decode(f, c);
      const std::uint32_t a = encode(f, m, v), b = fast(decode_f32(f, c));
      if (a != c) r.fail(std::string(ms) + ": reference encode(decode(" + hex(c) + ")) = " + hex(a));
      if (b != c) r.fail(std::string(ms) + ": fast encode(decode(" + hex(c) + ")) = " + hex(b));
      roundtrips += 2;
    }
  }
  for (const EncodeSpot& s : encode_spots()) {
    if (s.format != f) continue;
    const EncodeMode m = parse_mode(s.mode);
    const std::uint32_t a = encode_f32_bits_reference(f, m, s.f32_bits);
    const std::uint32_t b = FastEncoder(f, m).from_bits(s.f32_bits);
    if (a != s.expected || b != s.expected)
      r.fail(std::string(s.mode) + " input " + hex(s.f32_bits) + ": expected " + hex(s.expected) + " (" + s.source +
             "), reference " + hex(a) + ", fast " + hex(b));
    spots += 2;
  }
  for (const DecodeSpot& s : decode_spots()) {
    if (s.format != f) continue;
    const double v = decode(f, s.code);
    const bool ok = std::isnan(s.expected) ? std::isnan(v) : (v == s.expected && std::signbit(v) == std::signbit(s.expected));
    if (!ok) r.fail("decode " + hex(s.code) + " differs from the hand table (" + s.source + ")");
    ++spots;
  }
  r.counts = {{"codes decoded", decoded}, {"round-trip", roundtrips}, {"spot", spots}};
  return r;
}

#define DSV4_FORMAT_ROW(F) const SelfCheckRegistrar reg_##F{"formats", #F, [] { return check_format(Format::F); }};
DSV4_FORMAT_ROW(e4m3fn)
DSV4_FORMAT_ROW(e4m3fnuz)
DSV4_FORMAT_ROW(e5m2)
DSV4_FORMAT_ROW(e5m2fnuz)
DSV4_FORMAT_ROW(e8m0fnu)
DSV4_FORMAT_ROW(e2m1fn)
DSV4_FORMAT_ROW(bf16)
DSV4_FORMAT_ROW(fp16)
#undef DSV4_FORMAT_ROW

}  // namespace
}  // namespace dsv4::cli
