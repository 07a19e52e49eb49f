// Device-side decoders of the FP8 KV-cache fields (ops.md §3.1, known-bugs 12-15), on raw codes so every backend runs
// the same bit-exact code: e4m3fn / e4m3fnuz element codes, UE8M0 scale bytes (exact: 0x00 = 2^-127, 0xFF = NaN;
// never a float8 reinterpretation nor bits << 23) and the bf16 product FlashMLA forms, bf16(fp8)·bf16(scale) rounded
// to bf16. Include only after kernels/port/hip_port.hpp.
#pragma once
#include <cstdint>

#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"

namespace dsv4::kernels::smla {

// e4m3fn: bias 7, S.1111.111 is NaN, 0x80 is -0. e4m3fnuz: bias 8, 0x80 is NaN, no Inf, no -0.
__device__ __forceinline__ float decode_e4m3(std::uint32_t code, bool fnuz) {
  const std::uint32_t e = (code >> 3) & 0xFu, m = code & 7u;
  if (fnuz ? code == 0x80u : (code & 0x7Fu) == 0x7Fu) return fp8::bits_f32(0x7fc00000u);
  const int bias = fnuz ? 8 : 7;
  const float mag = e == 0 ? static_cast<float>(m) * fp8::pow2f(-2 - bias)
                           : static_cast<float>(8u + m) * fp8::pow2f(static_cast<int>(e) - bias - 3);
  return (code & 0x80u) ? -mag : mag;
}

// UE8M0 byte -> 2^(byte - 127); 0xFF is NaN. shift23 models known-bugs 13 (0x00 -> 0, 0xFF -> +Inf).
__device__ __forceinline__ float decode_e8m0(std::uint32_t byte, bool shift23) {
  if (shift23) return fp8::bits_f32(byte << 23);
  if (byte == 0xFFu) return fp8::bits_f32(0x7fc00000u);
  return fp8::pow2f(static_cast<int>(byte) - 127);
}

__device__ __forceinline__ float round_bf16(float x) { return common::bf16_to_f32(common::f32_to_bf16(x)); }

// bf16 code of bf16(fp8)·bf16(scale): the fp32 product of an fp8 value (4 significant bits) and a bf16 scale
// (8 bits) is exact, so one RNE to bf16 gives the bf16 product. `scale_bf16` is already rounded to bf16.
__device__ __forceinline__ std::uint32_t dequant_bf16(std::uint32_t code, bool fnuz, float scale_bf16) {
  return common::f32_to_bf16(decode_e4m3(code, fnuz) * scale_bf16);
}

}  // namespace dsv4::kernels::smla
