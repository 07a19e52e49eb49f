// The runtime's whole-wave MFMA body behind hipsim/amdgcn_mfma.h. Plain C types only; called only through that
// header. Every lane passes its A and B registers (raw bytes, element 0 in the low bytes of its first VGPR), its C
// registers and the instruction (shape, operand formats, modifiers: wave-uniform immediates, read from lane 0).
#pragma once
#include "hipsim/abi.h"

extern "C" {
// Operand formats of A and B.
enum __hipsim_mfma_format { __hipsim_mfma_f16, __hipsim_mfma_bf16, __hipsim_mfma_fp8_ocp, __hipsim_mfma_bf8_ocp,
                            __hipsim_mfma_fp8_fnuz, __hipsim_mfma_bf8_fnuz, __hipsim_mfma_fp4, __hipsim_mfma_fp6,
                            __hipsim_mfma_bf6, __hipsim_mfma_i8 };
struct __hipsim_mfma_in {
  unsigned char a[32], b[32];  // this lane's A / B registers
  float c[16];                 // this lane's C (accumulator) registers (the bits of int32 ones for the i8 forms)
  const char* name;            // the builtin, for errors
  int m, n, k, blocks, a_format, b_format, cbsz, abid, blgp;
  int f8f6f4;                  // 1: a V_MFMA_*_F8F6F4 instruction (its 8-bit operands have their own layout)
  int scaled;                  // 1: V_MFMA_SCALE (cbsz/blgp are then 0; the scales below apply)
  unsigned scale_a, scale_b;   // this lane's scale VGPRs (four e8m0 bytes each)
  int opsel_a, opsel_b;        // which byte of them
};
// fn for __hipsim_wave_collective: in[l] -> __hipsim_mfma_in, out[l] -> float[16] (this lane's D registers; int32
// bits for the i8 forms).
void __hipsim_mfma(const void* user, int lanes, const void* const* in, void* const* out);
}
