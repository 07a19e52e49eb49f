// The sim's <hip/hip_fp16.h>: __half and __half2 with HIP's conversions, bit-exact to reference/formats (fp16 round
// to nearest even with overflow to Inf on the way in, the exact decode on the way out, both via the runtime).
#pragma once
#include <cstdint>

#include "hip/hip_runtime.h"
#include "hipsim/half_ops.h"

struct __half {
  std::uint16_t data;
  __half() = default;
  __half(float f) : data(__hipsim_f32_to_f16_rn(f)) {}
  operator float() const { return __hipsim_f16_to_f32(data); }
};
struct alignas(4) __half2 {
  __half x, y;
};
typedef __half half;
typedef __half2 half2;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __float22half2_rn(float2 f) { return {__half(f.x), __half(f.y)}; }
inline float2 __half22float2(__half2 h) { return {float(h.x), float(h.y)}; }
inline __half __ushort_as_half(unsigned short u) { __half h; h.data = u; return h; }
inline unsigned short __half_as_ushort(__half h) { return h.data; }
HIPSIM_HALF_OPS(__half, __half2)
