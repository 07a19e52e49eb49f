// The sim's <hip/hip_bf16.h>: __hip_bfloat16 and __hip_bfloat162 with HIP's conversions. float -> bf16 is round to
// nearest even with HIP's NaN handling (reference/formats mode bf16-rne:nan=quiet-keep, via the runtime); bf16 ->
// float is exact. Arithmetic goes through float and rounds once, as HIP's host/device fallback does.
#pragma once
#include <cstdint>
#include <cstring>

#include "hip/hip_runtime.h"
#include "hipsim/half_ops.h"

struct __hip_bfloat16 {
  std::uint16_t data;
  __hip_bfloat16() = default;
  __hip_bfloat16(float f) : data(__hipsim_f32_to_bf16_rn(f)) {}
  operator float() const {
    const std::uint32_t bits = std::uint32_t(data) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
};
struct alignas(4) __hip_bfloat162 {
  __hip_bfloat16 x, y;
};
typedef __hip_bfloat16 hip_bfloat16;

inline __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
inline float __bfloat162float(__hip_bfloat16 b) { return float(b); }
inline __hip_bfloat162 __float22bfloat162_rn(float2 f) { return {__hip_bfloat16(f.x), __hip_bfloat16(f.y)}; }
inline __hip_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__hip_bfloat16(a), __hip_bfloat16(b)}; }
inline float2 __bfloat1622float2(__hip_bfloat162 b) { return {float(b.x), float(b.y)}; }
inline __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { __hip_bfloat16 b; b.data = u; return b; }
inline unsigned short __bfloat16_as_ushort(__hip_bfloat16 b) { return b.data; }
HIPSIM_HALF_OPS(__hip_bfloat16, __hip_bfloat162)
