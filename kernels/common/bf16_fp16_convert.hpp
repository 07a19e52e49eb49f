// Bit-exact bf16/fp16 <-> fp32 conversions for the kernels of every op, written on raw uint16 codes so that the
// same code runs on every backend (no vendor half types). Rounding is RNE with IEEE overflow to inf; NaN stays
// NaN (quiet). Include only after kernels/port/hip_port.hpp (uses __device__ / __forceinline__).
#pragma once
#include <cstdint>
#include <cstring>

namespace dsv4::kernels::common {

__device__ __forceinline__ float bits_to_f32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
__device__ __forceinline__ std::uint32_t f32_to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

__device__ __forceinline__ float bf16_to_f32(std::uint32_t h) { return bits_to_f32(h << 16); }

// fp16 -> fp32: shift exponent+mantissa into place and rescale by 2^112 (exact, handles subnormals); inf/NaN
// get the all-ones exponent.
__device__ __forceinline__ float f16_to_f32(std::uint32_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t em = h & 0x7fffu;
  if (em >= 0x7c00u) return bits_to_f32(sign | 0x7f800000u | ((em & 0x3ffu) << 13));
  const float mag = bits_to_f32(em << 13) * 5.192296858534828e33f;  // 2^112
  return bits_to_f32(sign | f32_to_bits(mag));
}

__device__ __forceinline__ std::uint16_t f32_to_bf16(float f) {
  const std::uint32_t u = f32_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__device__ __forceinline__ std::uint16_t f32_to_f16(float f) {
  const std::uint32_t u = f32_to_bits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (a < 0x38800000u) {  // below 2^-14: subnormal (or zero); RNE of a * 2^24 to an integer
    const float scaled = bits_to_f32(a) * 16777216.0f;  // exact
    const std::uint32_t s = f32_to_bits(scaled + 8388608.0f) - 0x4b000000u;  // RNE to integer (< 2^10)
    return static_cast<std::uint16_t>(sign | s);
  }
  const std::uint32_t r = a + 0xfffu + ((a >> 13) & 1u);  // RNE on the 13 dropped bits
  return static_cast<std::uint16_t>(sign | ((r - 0x38000000u) >> 13));
}

}  // namespace dsv4::kernels::common
