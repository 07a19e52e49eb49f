// Dot-product builtins for plain-HIP kernels on the sim, with clang-22's signatures (checked with clang++-22
// --cuda-device-only for gfx950): fdot2 (half2 x half2 + float), fdot2_f32_bf16 (bf16x2 x bf16x2 + float), sdot4
// (4 x int8 x int8 + int32). Rules (AMD CDNA3 ISA guide, "VOP3P": V_DOT2_F32_F16, V_DOT2_F32_BF16, V_DOT4_I32_I8):
// - fdot2: D = S0.x * S1.x + S0.y * S1.y + S2, the products exact, the sum rounded once to fp32 (the CDNA3 ISA does
//   not state its intermediate rounding); clamp limits the result to [0, 1].
// - fdot2_f32_bf16 (gfx950; CDNA4 ISA guide 12.10, V_DOT2_F32_BF16): in fp32 steps, tmp = S0.x * S1.x (exact: two
//   8-bit significands), tmp += S0.y * S1.y, tmp += S2, each addition rounded to fp32 (RNE); clamp as above.
// - sdot4: signed bytes of S0 and S1 (byte i with byte i), products summed with S2 in 32-bit integers (wrapping);
//   clamp saturates to the int32 range instead.
// They run per lane (no wave meeting).
// fdot2_f32_bf16 is gfx950's (clang-22: "needs target feature dot12-insts" on gfx942 and gfx90a): elsewhere a call
// is a compile error naming the builtin, as in clang.
#pragma once
#include <cstdint>

typedef _Float16 __hipsim_half2_t __attribute__((ext_vector_type(2)));
typedef __bf16 __hipsim_bf16x2_t __attribute__((ext_vector_type(2)));

namespace hipsim_detail {
inline float dot_clamp(double r, bool clamp) {
  const float f = float(r);
  if (!clamp) return f;
  return f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);  // a NaN stays NaN
}
}  // namespace hipsim_detail

inline float __builtin_amdgcn_fdot2(__hipsim_half2_t a, __hipsim_half2_t b, float c, bool clamp) {
  return hipsim_detail::dot_clamp(double(a.x) * double(b.x) + double(a.y) * double(b.y) + double(c), clamp);
}
namespace hipsim_detail {
inline double bf16_value(__bf16 h) {  // by its bits: bf16 is the top half of an fp32 (no runtime library call)
  return double(__builtin_bit_cast(float, std::uint32_t(__builtin_bit_cast(std::uint16_t, h)) << 16));
}
}  // namespace hipsim_detail
#if defined(__gfx950__)
inline float __builtin_amdgcn_fdot2_f32_bf16(__hipsim_bf16x2_t a, __hipsim_bf16x2_t b, float c, bool clamp) {
  using hipsim_detail::bf16_value;
  float tmp = float(bf16_value(a.x) * bf16_value(b.x));  // exact products, then two fp32 additions
  tmp += float(bf16_value(a.y) * bf16_value(b.y));
  tmp += c;
  return hipsim_detail::dot_clamp(double(tmp), clamp);
}
#else
float __builtin_amdgcn_fdot2_f32_bf16(__hipsim_bf16x2_t, __hipsim_bf16x2_t, float, bool) =
    delete("hipsim: needs target feature dot12-insts (gfx950 only; this file is built for "
#if defined(__gfx90a__)
           "gfx90a"
#else
           "gfx942"
#endif
           ")");
#endif
inline int __builtin_amdgcn_sdot4(int a, int b, int c, bool clamp) {
  std::int64_t s = c;
  for (int i = 0; i < 4; ++i) s += std::int64_t(std::int8_t(a >> (8 * i))) * std::int8_t(b >> (8 * i));
  if (clamp) return s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : int(s));
  return int(std::int32_t(std::uint32_t(std::uint64_t(s))));
}
