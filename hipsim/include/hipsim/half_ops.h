// Arithmetic of the 16-bit float types of hip_bf16.h and hip_fp16.h (T converts to and from float): through float,
// rounded once to T, as HIP's fallback does; and the pair types' float2 conversions.
#pragma once

#define HIPSIM_HALF_OPS(T, T2)                                                            \
  inline T operator+(T a, T b) { return float(a) + float(b); }                             \
  inline T operator-(T a, T b) { return float(a) - float(b); }                             \
  inline T operator*(T a, T b) { return float(a) * float(b); }                             \
  inline T operator/(T a, T b) { return float(a) / float(b); }                             \
  inline T __hadd(T a, T b) { return a + b; }                                              \
  inline T __hmul(T a, T b) { return a * b; }                                              \
  inline float __low2float(T2 h) { return float(h.x); }                                    \
  inline float __high2float(T2 h) { return float(h.y); }
