// FP8 E4M3 decoding for the indexer kernels: four codes of a little-endian 32-bit word at a time, through the exact
// per-flavour decoder fp8::e4m3_to_f32 of kernels/common/fp8_codec.hpp (e4m3fn: bias 7, 0x7F|sign NaN, 0x80 = −0;
// e4m3fnuz: bias 8, 0x80 NaN, the same bits worth half — known-bugs #15). Every code is an fp32 value, so the product
// of two decoded codes is exact in fp32 (4 + 4 significant bits), which the indexer's error model assumes.
// Kernel TUs only (pulls in hip_port.hpp).
#pragma once
#include <cstdint>

#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"

namespace dsv4::kernels::fp8 {

// Decodes the four bytes of `word` (byte 0 first) into out[0..3].
__host__ __device__ __forceinline__ void decode_e4m3_x4(std::uint32_t word, bool fnuz, float* out) {
  for (int i = 0; i < 4; ++i) out[i] = e4m3_to_f32(word >> (8 * i), fnuz);
}

}  // namespace dsv4::kernels::fp8
