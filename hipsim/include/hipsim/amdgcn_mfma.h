// CDNA MFMA builtins for plain-HIP kernels on the sim, with clang-22's signatures (BuiltinsAMDGPU.def: GCC vectors
// of _Float16 / short / __bf16 / float, int64 for 8 fp8 values, cbsz/abid/blgp constant integers). Each call is one
// whole-wave instruction: every lane's A, B and C registers meet in __hipsim_wave_collective and the runtime's
// __hipsim_mfma computes D = A*B + C by the ISA's lane layout (hipsim/runtime/amdgcn_mfma.cpp).
// Rules (AMD CDNA3 ISA guide, "Matrix Arithmetic Instructions"; CDNA4 guide for gfx950):
// - fp8/bf8 operands are FNUZ (e4m3fnuz/e5m2fnuz) on gfx942 and OCP (e4m3fn/e5m2) on gfx950.
// - CBSZ/ABID (A broadcast) and BLGP (B lane groups) exist for the multi-block 4x4x4 forms: CBSZ 0-4, ABID below
//   2^CBSZ, BLGP 0-7. A single-block instruction takes 0 for all three; anything else is a compile error here.
//   (clang also refuses a non-constant value; here one compiles and a bad one fails the launch at run time.)
// - 16x16x32 and 32x32x16 f16/bf16 are gfx950 only: on gfx942 a call is a compile error naming the builtin, as in clang.
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

// True when the modifiers are not what the instruction takes (see the header comment).
constexpr bool mfma_mods_bad(int blocks, int cbsz, int abid, int blgp) {
  if (blocks == 1) return cbsz != 0 || abid != 0 || blgp != 0;
  return cbsz < 0 || cbsz > 4 || abid < 0 || abid >= (1 << cbsz) || blgp < 0 || blgp > 7;
}

template <class VD, class VA, class VB>
inline VD mfma(const char* name, int m, int n, int k, int blocks, int af, int bf, const VA& a, const VB& b, VD c,
               int cbsz, int abid, int blgp, const std::source_location& loc) {
  static_assert(sizeof(VA) <= 16 && sizeof(VB) <= 16 && sizeof(VD) <= 16 * sizeof(float));
  __hipsim_mfma_in in;
  std::memcpy(in.a, &a, sizeof a);
  std::memcpy(in.b, &b, sizeof b);
  std::memcpy(in.c, &c, sizeof c);
  in.name = name;
  in.m = m, in.n = n, in.k = k, in.blocks = blocks, in.a_format = af, in.b_format = bf;
  in.cbsz = cbsz, in.abid = abid, in.blgp = blgp;
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
HIPSIM_MFMA(f32_16x16x32_fp8_fp8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_16x16x32_fp8_bf8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_BF8)
HIPSIM_MFMA(f32_16x16x32_bf8_fp8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_16x16x32_bf8_bf8, mfma_f4, mfma_l, 16, 16, 32, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_BF8)
HIPSIM_MFMA(f32_32x32x16_fp8_fp8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_32x32x16_fp8_bf8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_FP8, HIPSIM_MFMA_BF8)
HIPSIM_MFMA(f32_32x32x16_bf8_fp8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_FP8)
HIPSIM_MFMA(f32_32x32x16_bf8_bf8, mfma_f16, mfma_l, 32, 32, 16, 1, HIPSIM_MFMA_BF8, HIPSIM_MFMA_BF8)

#if defined(__gfx950__)
HIPSIM_MFMA(f32_16x16x32_f16, mfma_f4, mfma_h8, 16, 16, 32, 1, __hipsim_mfma_f16, __hipsim_mfma_f16)
HIPSIM_MFMA(f32_16x16x32_bf16, mfma_f4, mfma_y8, 16, 16, 32, 1, __hipsim_mfma_bf16, __hipsim_mfma_bf16)
HIPSIM_MFMA(f32_32x32x16_f16, mfma_f16, mfma_h8, 32, 32, 16, 1, __hipsim_mfma_f16, __hipsim_mfma_f16)
HIPSIM_MFMA(f32_32x32x16_bf16, mfma_f16, mfma_y8, 32, 32, 16, 1, __hipsim_mfma_bf16, __hipsim_mfma_bf16)
#else
// clang: "'__builtin_amdgcn_mfma_f32_16x16x32_f16' needs target feature gfx950-insts".
#define HIPSIM_MFMA_GFX950_ONLY(name, VD, VA)                                                                 \
  hipsim_detail::VD __builtin_amdgcn_mfma_##name(hipsim_detail::VA, hipsim_detail::VA, hipsim_detail::VD, int, int, \
                                                 int) =                                                       \
      delete("hipsim: needs target feature gfx950-insts (gfx950 only; this file is built for gfx942)");
HIPSIM_MFMA_GFX950_ONLY(f32_16x16x32_f16, mfma_f4, mfma_h8)
HIPSIM_MFMA_GFX950_ONLY(f32_16x16x32_bf16, mfma_f4, mfma_y8)
HIPSIM_MFMA_GFX950_ONLY(f32_32x32x16_f16, mfma_f16, mfma_h8)
HIPSIM_MFMA_GFX950_ONLY(f32_32x32x16_bf16, mfma_f16, mfma_y8)
#undef HIPSIM_MFMA_GFX950_ONLY
#endif

#undef HIPSIM_MFMA
#undef HIPSIM_MFMA_RULE_1
#undef HIPSIM_MFMA_RULE_16
#undef HIPSIM_MFMA_FP8
#undef HIPSIM_MFMA_BF8
