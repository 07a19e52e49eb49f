// Compatibility <hip/hip_bf16.h> for HIP headers that lack it (Debian's HIP 5.2): the bfloat16 type and the
// conversions and arithmetic that plain-HIP kernels (tests/hipsim) use, written from the bfloat16 format (1 sign,
// 8 exponent, 7 mantissa bits: the upper half of an IEEE float). The AMD compile check adds this folder with
// -idirafter, so a real <hip/hip_bf16.h> (ROCm >= 5.7) is found first and this one only where none exists.
// Rules: float -> bf16 rounds to nearest, ties to even, overflow to infinity; a NaN keeps its sign and truncated
// payload with the lowest kept mantissa bit forced, as HIP's own conversion (formats.md mode bf16-rne:nan=quiet-keep);
// arithmetic is done in float and rounded once. Also compiles as host C++ (g++ with the HIP headers), where
// tests/kernels/amd/hip_bf16_compat_test checks the conversion against the reference encoder.
#pragma once

#include <hip/hip_runtime.h>

struct __hip_bfloat16 {
  unsigned short data;
};
struct __hip_bfloat162 {
  __hip_bfloat16 x, y;
};

__host__ __device__ inline float __bfloat162float(__hip_bfloat16 b) {
  const unsigned int u = static_cast<unsigned int>(b.data) << 16;
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

__host__ __device__ inline __hip_bfloat16 __float2bfloat16(float f) {
  unsigned int u;
  __builtin_memcpy(&u, &f, sizeof u);
  __hip_bfloat16 b;
  if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN: sign and top payload bits kept, lowest kept bit forced
    b.data = static_cast<unsigned short>((u >> 16) | 0x0001u);
    return b;
  }
  const unsigned int lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;  // ties to even; carries into the exponent (up to infinity) as rounding must
  b.data = static_cast<unsigned short>(u >> 16);
  return b;
}

__host__ __device__ inline unsigned short __bfloat16_as_ushort(__hip_bfloat16 b) { return b.data; }
__host__ __device__ inline __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) {
  __hip_bfloat16 b;
  b.data = u;
  return b;
}

__host__ __device__ inline __hip_bfloat16 __hadd(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b));
}
__host__ __device__ inline __hip_bfloat16 __hsub(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __float2bfloat16(__bfloat162float(a) - __bfloat162float(b));
}
__host__ __device__ inline __hip_bfloat16 __hmul(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __float2bfloat16(__bfloat162float(a) * __bfloat162float(b));
}
__host__ __device__ inline __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return __float2bfloat16(__builtin_fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
}

__host__ __device__ inline float __low2float(__hip_bfloat162 v) { return __bfloat162float(v.x); }
__host__ __device__ inline float __high2float(__hip_bfloat162 v) { return __bfloat162float(v.y); }
__host__ __device__ inline __hip_bfloat162 __floats2bfloat162_rn(float lo, float hi) {
  return __hip_bfloat162{__float2bfloat16(lo), __float2bfloat16(hi)};
}
