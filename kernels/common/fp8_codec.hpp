// Bit-exact fp32 -> FP8 E4M3 encoders for kernel code (every backend, no vendor fp8 types) and the exact decoders
// e4m3_to_f32 / ue8m0_to_f32, shared by every kernel that reads or writes fp8 (quantizers, merge, cache write,
// fp8 GEMMs, indexer, sparse decode, topk, dequant).
// Include only after kernels/port/hip_port.hpp.
//   e4m3fn  (OCP):  bias 7, max 448 (0x7E), NaN 0x7F|sign, -0 = 0x80.
//   e4m3fnuz:       bias 8, max 240 (0x7F), NaN 0x80, no -0 (a zero result is 0x00).
// Rounding is RNE. Saturating mode (rne-satfinite): overflow and +-Inf give +-max, NaN gives the NaN code.
// Non-saturating mode (the `torch` library mode of formats.md §3.2): a rounded magnitude past max, Inf or NaN gives
// the NaN code (fn keeps the sign; fnuz 0x80).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace dsv4::kernels::fp8 {

__host__ __device__ __forceinline__ std::uint32_t f32_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
__host__ __device__ __forceinline__ float bits_f32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// 2^k as fp32 by bit construction (subnormal down to 2^-149, 0 below, +Inf above 2^127).
__host__ __device__ __forceinline__ float pow2f(int k) {
  if (k > 127) return bits_f32(0x7f800000u);
  if (k >= -126) return bits_f32(static_cast<std::uint32_t>(k + 127) << 23);
  if (k >= -149) return bits_f32(1u << (k + 149));
  return 0.0f;
}

// fnuz = false: e4m3fn; true: e4m3fnuz. saturate: rne-satfinite, else the non-saturating torch mode.
__host__ __device__ __forceinline__ std::uint8_t encode_e4m3(float x, bool fnuz, bool saturate) {
  const std::uint32_t u = f32_bits(x);
  const std::uint32_t sign = (u >> 24) & 0x80u;
  const std::uint32_t a = u & 0x7fffffffu;
  const std::uint32_t nan_code = fnuz ? 0x80u : (0x7fu | sign);
  const std::uint32_t max_code = fnuz ? 0x7fu : 0x7eu;
  const int bias = fnuz ? 8 : 7;
  if (a > 0x7f800000u) return static_cast<std::uint8_t>(nan_code);
  std::uint32_t code;
  if (a == 0x7f800000u) {
    code = 0x100u;  // Inf: overflow
  } else {
    const float m = bits_f32(a);
    const int e = static_cast<int>(a >> 23) - 127;  // floor(log2 m) for normals; subnormal fp32 is tiny anyway
    const int emin = 1 - bias;
    const int qexp = (e < emin ? emin : e) - 3;     // exponent of one code step at m's binade
    if (qexp > 20) {
      code = 0x100u;
    } else {
      // m * 2^-qexp is exact (power-of-two scaling of a value >= 2^-149 into [0, 16]); rint is RNE.
      const float steps = rintf(m * pow2f(-qexp));
      const auto q = static_cast<std::uint32_t>(steps);
      code = e < emin ? q : (static_cast<std::uint32_t>(e + bias) << 3) + (q - 8u);
    }
  }
  if (code > max_code) {
    if (!saturate) return static_cast<std::uint8_t>(nan_code);
    code = max_code;
  }
  if (fnuz && code == 0) return 0;
  return static_cast<std::uint8_t>(code | sign);
}

// FP8 E4M3 code -> fp32, exact (every code is an fp32 value). fnuz = false: e4m3fn (0x7F|sign NaN, 0x80 = -0);
// true: e4m3fnuz (0x80 NaN, bias 8: the same bits are worth half of fn's).
__host__ __device__ __forceinline__ float e4m3_to_f32(std::uint32_t code, bool fnuz) {
  code &= 0xFFu;
  if (fnuz ? code == 0x80u : (code & 0x7Fu) == 0x7Fu) return bits_f32(0x7fc00000u);
  const std::uint32_t e = (code >> 3) & 0xFu, m = code & 0x7u;
  const int bias = fnuz ? 8 : 7;
  const float mag = static_cast<float>(e != 0 ? 8u + m : m) * pow2f((e != 0 ? static_cast<int>(e) : 1) - bias - 3);
  return (code & 0x80u) != 0 ? -mag : mag;
}

// UE8M0 scale byte -> fp32, exact (formats.md §2 e8m0-exact): 2^(b - 127); 0x00 = 2^-127 (an fp32 subnormal, not
// 0), 0xFF = NaN (not +Inf: known-bugs #13). Kernels that need the exponent instead use ue8m0_exponent.
__host__ __device__ __forceinline__ float ue8m0_to_f32(std::uint32_t b) {
  b &= 0xFFu;
  return b == 0xFFu ? bits_f32(0x7fc00000u) : pow2f(static_cast<int>(b) - 127);
}
__host__ __device__ __forceinline__ int ue8m0_exponent(std::uint32_t b) { return static_cast<int>(b & 0xFFu) - 127; }

}  // namespace dsv4::kernels::fp8
