// CDNA MFMA builtins for plain-HIP kernels on the sim, with clang-22's signatures (BuiltinsAMDGPU.def: GCC vectors
// of _Float16 / short / __bf16 / float / int, int64 for 8 fp8 or i8 values, cbsz/abid/blgp constant integers). Each call is one
// whole-wave instruction: every lane's A, B and C registers meet in __hipsim_wave_collective and the runtime's
// __hipsim_mfma computes D = A*B + C by the ISA's lane layout (hipsim/runtime/amdgcn_mfma.cpp).
// Rules (AMD CDNA3 ISA guide, "Matrix Arithmetic Instructions"; the gfx950-only forms by the CDNA4 ISA guide 7.1-7.2,
// layouts in hipsim/runtime/amdgcn_mfma.cpp and tests/hipsim/mfma_layouts/generate.sh):
// - fp8/bf8 operands are FNUZ (e4m3fnuz/e5m2fnuz) on gfx942 and OCP (e4m3fn/e5m2) on gfx950.
// - CBSZ/ABID (A broadcast) and BLGP (B lane groups) exist for the multi-block 4x4x4 forms: CBSZ 0-4, ABID below
//   2^CBSZ, BLGP 0-7. A single-block instruction takes 0 for all three; anything else is a compile error here.
//   (clang also refuses a non-constant value; here one compiles and a bad one fails the launch at run time.)
// - 16x16x32 and 32x32x16 f16/bf16, the scaled 16x16x128 / 32x32x64 and the i8 16x16x64 / 32x32x32 are gfx950 only,
//   the fp8/bf8 forms and the i8 16x16x32 / 32x32x16 gfx942 and gfx950 only (clang: target features gfx950-insts,
//   fp8-insts, gfx940-insts): elsewhere a call is a compile error naming the builtin and the arch, as in clang (which
//   takes the i8 16x16x32 for gfx90a and then fails in its backend). gfx90a has the 4x4x4, 16x16x16 and 32x32x8 f16
//   and bf16_1k forms.
// - The i8 forms multiply signed 8-bit integers exactly and accumulate in int32, wrapping on overflow (CDNA4 ISA
//   guide 7.1.2: without clamp the carry out bits are dropped; 7.4).
#pragma once
#include <cstddef>
#include <cstring>
#include <source_location>

#include "hipsim/abi_mfma.h"

namespace hipsim_detail {
typedef float mfma_f4 __attribute__((__vector_size__(4 * sizeof(float))));
typedef float mfma_f16 __attribute__((__vector_size__(16 * sizeof(float))));
typedef _Float16 mfma_h4 __attribute__((__vector_size__(4 * sizeof(_Float16))));
typedef _Float16 mfma_h8 __attribute__((__vector_size__(8 * sizeof(_Float16))));
typedef short mfma_s4 __attribute__((__vector_size__(4 * sizeof(short))));
typedef __bf16 mfma_y8 __attribute__((__vector_size__(8 * sizeof(__bf16))));
typedef long mfma_l;  // clang "Wi": 8 fp8 values in two VGPRs
typedef int mfma_i8 __attribute__((__vector_size__(8 * sizeof(int))));
typedef int mfma_n4 __attribute__((__vector_size__(4 * sizeof(int))));
typedef int mfma_n16 __attribute__((__vector_size__(16 * sizeof(int))));

// V_MFMA_SCALE operand formats (the cbsz / blgp immediates, CDNA4 ISA guide 7.1.5): 0 fp8 e4m3, 1 bf8 e5m2,
// 2 fp6 e2m3, 3 bf6 e3m2, 4 fp4 e2m1 (OCP MX); fp8 takes 8 VGPRs of the operand, fp6 6, fp4 4 (the rest unread).
constexpr int mfma_scale_format(int sel) {
  return sel == 0   ? __hipsim_mfma_fp8_ocp
         : sel == 1 ? __hipsim_mfma_bf8_ocp
         : sel == 2 ? __hipsim_mfma_fp6
         : sel == 3 ? __hipsim_mfma_bf6
                    : __hipsim_mfma_fp4;
}
constexpr bool mfma_scale_bad(int fa, int fb, int opsel_a, int opsel_b) {
  return fa < 0 || fa > 4 || fb < 0 || fb > 4 || opsel_a < 0 || opsel_a > 3 || opsel_b < 0 || opsel_b > 3;
}

// True when the modifiers are not what the instruction takes (see the header comment).
constexpr bool mfma_mods_bad(int blocks, int cbsz, int abid, int blgp) {
  if (blocks == 1) return cbsz != 0 || abid != 0 || blgp != 0;
  return cbsz < 0 || cbsz > 4 || abid < 0 || abid >= (1 << cbsz) || blgp < 0 || blgp > 7;
}

template <class VD, class VA, class VB>
inline VD mfma(const char* name, int m, int n, int k, int blocks, int af, int bf, const VA& a, const VB& b, VD c,
               int cbsz, int abid, int blgp, const std::source_location& loc, int scaled = 0, int scale_a = 0,
               int scale_b = 0, int opsel_a = 0, int opsel_b = 0) {
  static_assert(sizeof(VA) <= 32 && sizeof(VB) <= 32 && sizeof(VD) <= 16 * sizeof(float));  // VD: float or int32
  __hipsim_mfma_in in;
  std::memcpy(in.a, &a, sizeof a);
  std::memcpy(in.b, &b, sizeof b);
  std::memcpy(in.c, &c, sizeof c);
  in.name = name;
  in.m = m, in.n = n, in.k = k, in.blocks = blocks, in.a_format = af, in.b_format = bf;
  in.cbsz = cbsz, in.abid = abid, in.blgp = blgp;
  in.f8f6f4 = scaled, in.scaled = scaled, in.scale_a = unsigned(scale_a), in.scale_b = unsigned(scale_b);
  in.opsel_a = opsel_a, in.opsel_b = opsel_b;
  float out[16];
  __hipsim_wave_collective(__hipsim_mfma, nullptr, &in, out, &loc);
  VD d;
  std::memcpy(&d, out, sizeof d);
  return d;
}
}  // namespace hipsim_detail

#if defined(__gfx950__)
#define HIPSIM_MFMA_FP8 __hipsim_mfma_fp8_ocp
#define HIPSIM_MFMA_BF8 __hipsim_mfma_bf8_ocp
#else
#define HIPSIM_MFMA_FP8 __hipsim_mfma_fp8_fnuz
#define HIPSIM_MFMA_BF8 __hipsim_mfma_bf8_fnuz
#endif

#define HIPSIM_MFMA(name, VD, VA, M, N, K, BLOCKS, AF, BF)                                                       \
  inline hipsim_detail::VD __builtin_amdgcn_mfma_##name(hipsim_detail::VA a, hipsim_detail::VA b,                 \
                                                        hipsim_detail::VD c, int cbsz, int abid, int blgp,       \
                                                        std::source_location loc = std::source_location::current()) \
      __attribute__((diagnose_if(hipsim_detail::mfma_mods_bad(BLOCKS, cbsz, abid, blgp),                         \
                                 "hipsim: __builtin_amdgcn_mfma_" #name ": " HIPSIM_MFMA_RULE_##BLOCKS,         \
                                 "error"))) {                                                                    \
    return hipsim_detail::mfma(#name, M, N, K, BLOCKS, AF, BF, a, b, c, cbsz, abid, blgp, loc);                  \
  }
#define HIPSIM_MFMA_RULE_1 "cbsz, abid and blgp must be 0 for a single-block MFMA"
#define HIPSIM_MFMA_RULE_16 "cbsz must be 0-4, abid below 2^cbsz, blgp 0-7"

// name                      D        A/B      M   N   K  blocks A format          B format
HIPSIM_MFMA(f32_4x4x4f16, mfma_f4, mfma_h4, 4, 4, 4, 16, __hipsim_mfma_f16, __hipsim_mfma_f16)
HIPSIM_MFMA(f32_16x16x16f16, mfma_f4, mfma_h4, 16, 16, 16, 1, __hipsim_mfma_f16, __hipsim_mfma_f16)
HIPSIM_MFMA(f32_32x32x8f16, mfma_f16, mfma_h4, 32, 32, 8, 1, __hipsim_mfma_f16, __hipsim_mfma_f16)
HIPSIM_MFMA(f32_4x4x4bf16_1k, mfma_f4, mfma_s4, 4, 4, 4, 16, __hipsim_mfma_bf16, __hipsim_mfma_bf16)
HIPSIM_MFMA(f32_16x16x16bf16_1k, mfma_f4, mfma_s4, 16, 16, 16, 1, __hipsim_mfma_bf16, __hipsim_mfma_bf16)
HIPSIM_MFMA(f32_32x32x8bf16_1k, mfma_f16, mfma_s4, 32, 32, 8, 1, __hipsim_mfma_bf16, __hipsim_mfma_bf16)
#if defined(__gfx90a__)
#define HIPSIM_MFMA_BUILT_FOR "gfx90a"
// clang: "'__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8' needs target feature fp8-insts".
#define HIPSIM_MFMA_FP8_ONLY(name, VD)                                                                          \
  hipsim_detail::VD __builtin_amdgcn_mfma_##name(hipsim_detail::mfma_l, hipsim_detail::mfma_l, hipsim_detail::VD, \
                                                 int, int, int) =                                               \
      delete("hipsim: needs target feature fp8-insts (gfx942 and gfx950 only; this file is built for gfx90a)");
HIPSIM_MFMA_FP8_ONLY(f32_16x16x32_fp8_fp8, mfma_f4)
HIPSIM_MFMA_FP8_ONLY(f32_16x16x32_fp8_bf8, mfma_f4)
HIPSIM_MFMA_FP8_ONLY(f32_16x16x32_bf8_fp8, mfma_f4)
HIPSIM_MFMA_FP8_ONLY(f32_16x16x32_bf8_bf8, mfma_f4)
HIPSIM_MFMA_FP8_ONLY(f32_32x32x16_fp8_fp8, mfma_f16)
HIPSIM_MFMA_FP8_ONLY(f32_32x32x16_fp8_bf8, mfma_f16)
HIPSIM_MFMA_FP8_ONLY(f32_32x32x16_bf8_fp8, mfma_f16)
HIPSIM_MFMA_FP8_ONLY(f32_32x32x16_bf8_bf8, mfma_f16)
#undef HIPSIM_MFMA_FP8_ONLY
// clang takes these for gfx90a in its front end and then fails in the backend ("Cannot select").
#define HIPSIM_MFMA_I8_GFX940(name, VD)                                                                         \
  hipsim_detail::VD __builtin_amdgcn_mfma_##name(hipsim_detail::mfma_l, hipsim_detail::mfma_l, hipsim_detail::VD, \
                                                 int, int, int) =                                               \
      delete("hipsim: needs target feature gfx940-insts (gfx942 and gfx950 only; this file is built for gfx90a)");
HIPSIM_MFMA_I8_GFX940(i32_16x16x32_i8, mfma_n4)
HIPSIM_MFMA_I8_GFX940(i32_32x32x16_i8, mfma_n16)
#undef HIPSIM_MFMA_I8_GFX940
#else
#define HIPSIM_MFMA_BUILT_FOR "gfx942"
HIPSIM_MFMA(f32_16x16x32_fp8_fp8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_16x16x32_fp8_bf8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_BF8)
HIPSIM_MFMA(f32_16x16x32_bf8_fp8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_16x16x32_bf8_bf8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_BF8)
HIPSIM_MFMA(f32_32x32x16_fp8_fp8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_32x32x16_fp8_bf8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_BF8)
HIPSIM_MFMA(f32_32x32x16_bf8_fp8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_32x32x16_bf8_bf8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_BF8)
HIPSIM_MFMA(i32_16x16x32_i8, mfma_n4, mfma_l, 16, 16, 32, 1, __hipsim_mfma_i8, __hipsim_mfma_i8)
HIPSIM_MFMA(i32_32x32x16_i8, mfma_n16, mfma_l, 32, 32, 16, 1, __hipsim_mfma_i8, __hipsim_mfma_i8)
#endif

#if defined(__gfx950__)
HIPSIM_MFMA(f32_16x16x32_f16, mfma_f4, mfma_h8, 16, 16, 32, 1, __hipsim_mfma_f16, __hipsim_mfma_f16)
HIPSIM_MFMA(f32_16x16x32_bf16, mfma_f4, mfma_y8, 16, 16, 32, 1, __hipsim_mfma_bf16, __hipsim_mfma_bf16)
HIPSIM_MFMA(f32_32x32x16_f16, mfma_f16, mfma_h8, 32, 32, 16, 1, __hipsim_mfma_f16, __hipsim_mfma_f16)
HIPSIM_MFMA(f32_32x32x16_bf16, mfma_f16, mfma_y8, 32, 32, 16, 1, __hipsim_mfma_bf16, __hipsim_mfma_bf16)
HIPSIM_MFMA(i32_16x16x64_i8, mfma_n4, mfma_n4, 16, 16, 64, 1, __hipsim_mfma_i8, __hipsim_mfma_i8)
HIPSIM_MFMA(i32_32x32x32_i8, mfma_n16, mfma_n4, 32, 32, 32, 1, __hipsim_mfma_i8, __hipsim_mfma_i8)
// V_MFMA_SCALE_F32_16X16X128_F8F6F4 and _32X32X64_ (gfx950): D = sum_k (A[i][k] * 2^(SA-127)) * (B[k][j] *
// 2^(SB-127)) + C, SA the e8m0 byte opsel_a of scale_a in lane i + M*(k/32) (one scale per row and 32 k; CDNA4 ISA
// guide 7.2.1), SB likewise; the formats are the cbsz (A) and blgp (B) immediates.
#define HIPSIM_MFMA_SCALE(shape, VD, M, N, K)                                                                     \
  inline hipsim_detail::VD __builtin_amdgcn_mfma_scale_f32_##shape##_f8f6f4(                                       \
      hipsim_detail::mfma_i8 a, hipsim_detail::mfma_i8 b, hipsim_detail::VD c, int cbsz, int blgp, int opsel_a,    \
      int scale_a, int opsel_b, int scale_b, std::source_location loc = std::source_location::current())           \
      __attribute__((diagnose_if(hipsim_detail::mfma_scale_bad(cbsz, blgp, opsel_a, opsel_b),                      \
                                 "hipsim: __builtin_amdgcn_mfma_scale_f32_" #shape "_f8f6f4: the A/B formats (cbsz, "  \
                                 "blgp) must be 0-4 and each op_sel 0-3",                                          \
                                 "error"))) {                                                                      \
    return hipsim_detail::mfma("scale_f32_" #shape "_f8f6f4", M, N, K, 1, hipsim_detail::mfma_scale_format(cbsz),  \
                               hipsim_detail::mfma_scale_format(blgp), a, b, c, 0, 0, 0, loc, 1, scale_a, scale_b, \
                               opsel_a, opsel_b);                                                                  \
  }
HIPSIM_MFMA_SCALE(16x16x128, mfma_f4, 16, 16, 128)
HIPSIM_MFMA_SCALE(32x32x64, mfma_f16, 32, 32, 64)
#undef HIPSIM_MFMA_SCALE
#else
// clang: "'__builtin_amdgcn_mfma_f32_16x16x32_f16' needs target feature gfx950-insts".
#define HIPSIM_MFMA_GFX950_ONLY(name, VD, VA)                                                                 \
  hipsim_detail::VD __builtin_amdgcn_mfma_##name(hipsim_detail::VA, hipsim_detail::VA, hipsim_detail::VD, int, int, \
                                                 int) =                                                       \
      delete("hipsim: needs target feature gfx950-insts (gfx950 only; this file is built for " HIPSIM_MFMA_BUILT_FOR ")");
HIPSIM_MFMA_GFX950_ONLY(f32_16x16x32_f16, mfma_f4, mfma_h8)
HIPSIM_MFMA_GFX950_ONLY(f32_16x16x32_bf16, mfma_f4, mfma_y8)
HIPSIM_MFMA_GFX950_ONLY(f32_32x32x16_f16, mfma_f16, mfma_h8)
HIPSIM_MFMA_GFX950_ONLY(f32_32x32x16_bf16, mfma_f16, mfma_y8)
HIPSIM_MFMA_GFX950_ONLY(i32_16x16x64_i8, mfma_n4, mfma_n4)
HIPSIM_MFMA_GFX950_ONLY(i32_32x32x32_i8, mfma_n16, mfma_n4)
hipsim_detail::mfma_f4 __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(hipsim_detail::mfma_i8, hipsim_detail::mfma_i8,
                                                                        hipsim_detail::mfma_f4, int, int, int, int,
                                                                        int, int) =
    delete("hipsim: needs target feature gfx950-insts (gfx950 only; this file is built for " HIPSIM_MFMA_BUILT_FOR ")");
hipsim_detail::mfma_f16 __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(hipsim_detail::mfma_i8, hipsim_detail::mfma_i8,
                                                                        hipsim_detail::mfma_f16, int, int, int, int,
                                                                        int, int) =
    delete("hipsim: needs target feature gfx950-insts (gfx950 only; this file is built for " HIPSIM_MFMA_BUILT_FOR ")");
#undef HIPSIM_MFMA_GFX950_ONLY
#endif

#undef HIPSIM_MFMA
#undef HIPSIM_MFMA_RULE_1
#undef HIPSIM_MFMA_RULE_16
#undef HIPSIM_MFMA_FP8
#undef HIPSIM_MFMA_BF8
#undef HIPSIM_MFMA_BUILT_FOR
