// Exact FP8 E4M3 -> fp32 decoding for kernel code (every backend, no vendor fp8 types), the inverse of the
// encoders in kernels/quant_fp8/fp8_codec.hpp (same bit conventions; include only after kernels/port/hip_port.hpp).
//   e4m3fn  (OCP, gfx950 / sm_90): bias 7, 0x7F|sign = NaN, 0x80 = -0, no inf, max 448.
//   e4m3fnuz (gfx942):             bias 8, 0x80 = NaN, no -0, no inf, max 240 (same bits worth half of fn's).
// Every code is exactly representable in fp32, so the product of two decoded codes is exact in fp32 as well
// (4 + 4 significant bits), which is what the indexer's error model assumes.
#pragma once
#include <cstdint>

#include "kernels/port/hip_port.hpp"
#include "kernels/quant_fp8/fp8_codec.hpp"

namespace dsv4::kernels::fp8 {

__host__ __device__ __forceinline__ float decode_e4m3(std::uint32_t code, bool fnuz) {
  code &= 0xFFu;
  if (fnuz ? code == 0x80u : (code & 0x7Fu) == 0x7Fu) return bits_f32(0x7fc00000u);
  const std::uint32_t e = (code >> 3) & 0xFu;
  const std::uint32_t m = code & 0x7u;
  const int bias = fnuz ? 8 : 7;
  // normal: (8 + m)·2^(e − bias − 3); subnormal (e = 0): m·2^(1 − bias − 3). Both factors exact, product exact.
  const float mag = static_cast<float>(e != 0 ? 8u + m : m) * pow2f((e != 0 ? static_cast<int>(e) : 1) - bias - 3);
  return (code & 0x80u) != 0 ? -mag : mag;
}

// Decodes the four bytes of a little-endian 32-bit word (byte 0 first) into out[0..3].
__host__ __device__ __forceinline__ void decode_e4m3_x4(std::uint32_t word, bool fnuz, float* out) {
  for (int i = 0; i < 4; ++i) out[i] = decode_e4m3(word >> (8 * i), fnuz);
}

}  // namespace dsv4::kernels::fp8
