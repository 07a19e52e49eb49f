// Device-side scale rules of the FP8 quantization kernels (per_token_group_quant_fp8, per_block_quant_fp8,
// inv_rope_fp8_quant): the recipe families of formats.md §5 evaluated in fp32 exactly like
// reference/formats/recipes.cpp, from a group's / tile's amax. NaN-propagating max (an amax of NaN gives a NaN
// scale, UE8M0 byte 0xFF where the recipe stores one). Include only after kernels/port/hip_port.hpp.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/common/fp8_codec.hpp"
#include "kernels/quant_fp8/quant_plan.hpp"

namespace dsv4::kernels::fp8 {

// max(a, b) that returns NaN when either is NaN (fmaxf would drop it).
__host__ __device__ __forceinline__ float fmax_nan(float a, float b) {
  if (a != a || b != b) return a != a ? a : b;
  return a < b ? b : a;
}

// ceil(log2 v) from the fp32 bits: biased exponent - 127 + (mantissa != 0).
__host__ __device__ __forceinline__ int log2_ceil_bits(float v) {
  const std::uint32_t b = f32_bits(v);
  return static_cast<int>((b >> 23) & 0xFFu) - 127 + ((b & 0x7FFFFFu) != 0 ? 1 : 0);
}

struct Scale {
  float s;
  std::uint32_t byte;  // UE8M0 byte (power-of-two rules)
};

__host__ __device__ __forceinline__ Scale pow2_scale(int k, bool clamp_byte) {
  int byte = k + 127;
  if (clamp_byte) byte = byte < 0 ? 0 : (byte > 255 ? 255 : byte);
  const std::uint32_t b = (byte >= 0 && byte <= 255) ? static_cast<std::uint32_t>(byte) : 0u;
  return {pow2f(k), b};
}

__host__ __device__ __forceinline__ Scale nan_scale() { return {bits_f32(0x7fc00000u), 0xFFu}; }

// The scale of one group / tile: rule, amax floor and fp8_max (elem_max) as resolved by make_quant_plan.
__host__ __device__ __forceinline__ Scale compute_scale(quant::ScaleRule rule, float amax, float floor, float em) {
  using quant::ScaleRule;
  switch (rule) {
    case ScaleRule::plain: return {fmax_nan(amax, floor) / em, 0u};
    case ScaleRule::bits_ceil_mul: return pow2_scale(log2_ceil_bits(fmax_nan(amax, floor) * (1.0f / em)), false);
    case ScaleRule::log2_ceil: {
      const float c = ceilf(log2f(fmax_nan(amax, floor) / em));
      if (c != c) return nan_scale();
      return pow2_scale(static_cast<int>(c < -1000.f ? -1000.f : (c > 1000.f ? 1000.f : c)), true);
    }
    case ScaleRule::ue8m0_ceil: {
      const std::uint32_t b = f32_bits(fmax_nan(amax, floor) / em);
      int e = static_cast<int>(((b >> 23) & 0xFFu) + ((b & 0x7FFFFFu) != 0 ? 1u : 0u));
      e = e < 1 ? 1 : (e > 254 ? 254 : e);
      return pow2_scale(e - 127, false);
    }
    case ScaleRule::tk_ceil: {
      const std::uint32_t b = f32_bits(fmax_nan(amax, floor) / em);
      return pow2_scale(static_cast<int>(((b - 1u) >> 23) + 1u) - 127, false);
    }
    case ScaleRule::scale_floor_log2: {
      const float c = ceilf(log2f(fmax_nan(amax / em, floor)));
      if (c != c) return nan_scale();
      return pow2_scale(static_cast<int>(c < -1000.f ? -1000.f : (c > 1000.f ? 1000.f : c)), false);
    }
  }
  return {0.f, 0u};
}

// One element: x / s (divide) or x * fl(1/s), optional clamp to +-em, then the e4m3 cast.
__host__ __device__ __forceinline__ std::uint8_t quantize_elem(float x, const Scale& sc, float inv, float em,
                                                               bool divide, bool clamp, bool fnuz, bool saturate) {
  float y = divide ? x / sc.s : x * inv;
  if (clamp && fabsf(y) > em) y = copysignf(em, y);
  return encode_e4m3(y, fnuz, saturate);
}

}  // namespace dsv4::kernels::fp8
