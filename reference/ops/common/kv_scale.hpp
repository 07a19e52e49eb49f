// KV-cache scale recipes (formats.md §5: `flashmla-kv-test`, `vllm-v4-kv`, and `plain-fp32` for V3.2
// fp32 scales) and the fp8 element encoder the KV writers use. Local to the KV-cache ops because
// reference/formats/recipes.hpp did not exist when these were written; every step is exact
// (bit-level ceil to a power of two, fp32 arithmetic emulated by correctly rounded float64 ops).
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "reference/formats/format.hpp"
#include "reference/formats/rne.hpp"

namespace dsv4::kv {

enum class ScaleRecipe : std::uint8_t { flashmla_kv_test, vllm_v4_kv, plain_fp32 };

inline std::optional<ScaleRecipe> parse_scale_recipe(const std::string& s) {
  if (s == "flashmla-kv-test") return ScaleRecipe::flashmla_kv_test;
  if (s == "vllm-v4-kv") return ScaleRecipe::vllm_v4_kv;
  if (s == "plain-fp32") return ScaleRecipe::plain_fp32;
  return std::nullopt;
}

// Smallest power-of-two exponent e with 2^e >= x, for a finite positive fp32 x, by bit operations
// (the DeepSeek fast_log2_ceil trick: biased exponent, +1 if any mantissa bit is set; fp32 subnormals
// handled by their exact position).
inline int ceil_log2_f32(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const int exp = static_cast<int>((bits >> 23) & 0xFF);
  const std::uint32_t man = bits & 0x7FFFFF;
  if (exp == 0) {  // subnormal: value = man * 2^-149
    const int top = 31 - std::countl_zero(man);
    return -149 + top + ((man & (man - 1)) != 0 ? 1 : 0);
  }
  return exp - 127 + (man != 0 ? 1 : 0);
}

// fp32 RNE of a float64 (one rounding; fp32 +,-,*,/ of fp32 operands emulated in float64 and then
// rounded here is exact, since 53 >= 2*24+2).
inline float to_f32(double x) { return static_cast<float>(x); }

// The per-tile scale a recipe picks. `scale` is what the elements are divided by; `stored_f32` is
// the fp32 the V3.2 layout stores; `e8m0` the UE8M0 byte the MODEL1 layout stores.
struct TileScale {
  double scale;
  float stored_f32;
  std::uint8_t e8m0;
};

// fp8_max: 448 for e4m3fn; for e4m3fnuz vLLM uses 224 (formats.md §6).
inline double kv_fp8_max(formats::Format f) { return f == formats::Format::e4m3fnuz ? 224.0 : 448.0; }

// amax: max |x| over the tile (NaN if any element is NaN, +inf if any is infinite).
inline TileScale tile_scale(ScaleRecipe r, double amax, formats::Format fp8) {
  const double fmax = kv_fp8_max(fp8);
  TileScale t{};
  if (std::isnan(amax) || std::isinf(amax)) {
    // Non-finite tile: every recipe ends with a non-finite scale; the e8m0 byte is 0xFF (vLLM clamps
    // exponent+127 to [0,255]; torch's e8m0 cast of Inf/NaN gives the NaN code).
    t.scale = std::isnan(amax) ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    t.stored_f32 = static_cast<float>(t.scale);
    t.e8m0 = 0xFF;
    return t;
  }
  const float a = to_f32(amax);
  int e = 0;
  switch (r) {
    case ScaleRecipe::flashmla_kv_test: {  // sf = amax/448 (fp32); clamp the *scale* at 1e-4; ceil pow2
      float sf = to_f32(static_cast<double>(a) / fmax);
      sf = std::max(sf, 1e-4f);
      e = ceil_log2_f32(sf);
      break;
    }
    case ScaleRecipe::vllm_v4_kv: {  // clamp *amax* at 1e-4, divide by fp8_max (fp32), ceil pow2
      const float am = std::max(a, 1e-4f);
      e = ceil_log2_f32(to_f32(static_cast<double>(am) / fmax));
      break;
    }
    case ScaleRecipe::plain_fp32: {  // sf = max(amax, 1e-4)/fp8_max in fp32, no power-of-two rounding
      const float sf = to_f32(static_cast<double>(std::max(a, 1e-4f)) / fmax);
      t.scale = sf;
      t.stored_f32 = sf;
      t.e8m0 = 0xFF;  // not representable as UE8M0 in general; the MODEL1 writer rejects this recipe
      return t;
    }
  }
  t.scale = std::ldexp(1.0, e);
  t.stored_f32 = static_cast<float>(t.scale);
  t.e8m0 = static_cast<std::uint8_t>(std::clamp(e + 127, 0, 255));
  return t;
}

// fp32 value x -> fp8 code by RNE. saturate: finite overflow and +-Inf become +-max (rne-satfinite,
// the clamp-then-cast of vLLM); otherwise overflow gives the NaN code (rne-nonsat, torch .to()).
// NaN keeps its sign for e4m3fn (0x7F/0xFF) and is 0x80 for fnuz; fnuz has no -0.
inline std::uint8_t encode_fp8(formats::Format f, double x, bool saturate) {
  const bool fnuz = f == formats::Format::e4m3fnuz || f == formats::Format::e5m2fnuz;
  const std::uint32_t sign = std::signbit(x) ? 0x80u : 0u;
  const std::uint32_t nan_code = fnuz ? 0x80u : (0x7Fu | sign);
  if (std::isnan(x)) return static_cast<std::uint8_t>(nan_code);
  const std::uint32_t maxc = formats::max_finite_code(f);
  std::uint32_t mag;
  if (std::isinf(x)) {
    if (!saturate) return static_cast<std::uint8_t>(nan_code);
    mag = maxc;
  } else {
    const auto rm = formats::round_magnitude(f, std::fabs(x));
    if (rm.overflow || rm.magnitude_code > maxc) {
      if (!saturate) return static_cast<std::uint8_t>(nan_code);
      mag = maxc;
    } else {
      mag = rm.magnitude_code;
    }
  }
  if (fnuz && mag == 0) return 0;
  return static_cast<std::uint8_t>(mag | sign);
}

}  // namespace dsv4::kv
