// What the inline asm rewrite (hipsim/tools/asm_stmts.py) calls: s_waitcnt, and the VALU forms ROCm reductions use
// (v_mov_b32 / v_add_f32 / v_max_f32, plain or DPP-modified, and v_dot2c_f32_f16). The rewrite keeps each register in
// a temporary; these functions compute one instruction for the calling lane.
// Rules (AMD CDNA3 ISA guide, "Data Parallel Processing (DPP)" and "VOP2"):
// - With DPP, source 0 is read through the DPP lane map (hipsim/runtime/amdgcn_dpp.cpp); a lane whose row/bank mask
//   bit is clear, or whose source lane is invalid with BOUND_CTRL clear, is not written (keeps the destination's old
//   value); with BOUND_CTRL set an invalid source reads 0 and the lane is written. The sim computes the mask with a
//   second DPP move of a marker, so one DPP instruction is two wave meetings at the same site.
// - v_add_f32: IEEE single add (round to nearest even); v_max_f32: the larger, a NaN operand giving the other one
//   (fmaxf); v_mov_b32: the 32 bits.
// - v_dot2c_f32_f16: D = D + S0[15:0] * S1[15:0] + S0[31:16] * S1[31:16] (fp16 halves); the products are exact in
//   double, the sum is rounded once to fp32 (the ISA does not state its intermediate rounding).
// Operands are any 32-bit types, taken as bits.
#pragma once
#include <cmath>
#include <cstdint>
#include <source_location>

#include "hipsim/abi.h"
#include "hipsim/abi_mem.h"

namespace hipsim_detail {
enum class AsmOp { mov_b32, add_f32, max_f32 };

inline void asm_s_waitcnt(int vmcnt, int, int) {
  if (vmcnt >= 0) __hipsim_vmcnt_wait(vmcnt);
}

template <class T>
T asm_undef() {
  static_assert(sizeof(T) == 4, "hipsim: inline asm VGPR operands are 32-bit");
  return __builtin_bit_cast(T, ~std::uint32_t(0));
}

template <class D, class S0, class S1>
D asm_vop(AsmOp op, D, S0 s0, S1 s1) {
  static_assert(sizeof(D) == 4 && sizeof(S0) == 4 && sizeof(S1) == 4, "hipsim: inline asm VGPR operands are 32-bit");
  const float a = __builtin_bit_cast(float, s0), b = __builtin_bit_cast(float, s1);
  switch (op) {
    case AsmOp::mov_b32: return __builtin_bit_cast(D, s0);
    case AsmOp::add_f32: return __builtin_bit_cast(D, a + b);
    case AsmOp::max_f32: return __builtin_bit_cast(D, std::fmax(a, b));
  }
  return __builtin_bit_cast(D, s0);
}

template <class D, class S0, class S1>
D asm_vop_dpp(AsmOp op, D old, S0 s0, S1 s1, int ctrl, int row_mask, int bank_mask, bool bound_ctrl,
              std::source_location loc = std::source_location::current()) {
  static_assert(sizeof(D) == 4 && sizeof(S0) == 4 && sizeof(S1) == 4, "hipsim: inline asm VGPR operands are 32-bit");
  const std::uint32_t a = __builtin_bit_cast(std::uint32_t, s0);
  const std::uint32_t moved = __builtin_amdgcn_update_dpp(0u, a, ctrl, row_mask, bank_mask, bound_ctrl, loc);
  // 1: written from a valid lane, 0: written as 0 (bound_ctrl), 2: not written
  const std::uint32_t mark = __builtin_amdgcn_update_dpp(2u, 1u, ctrl, row_mask, bank_mask, bound_ctrl, loc);
  if (mark == 2u) return old;
  return asm_vop(op, old, moved, s1);
}

template <class D, class S0, class S1>
D asm_dot2c_f32_f16(D acc, S0 s0, S1 s1) {
  static_assert(sizeof(D) == 4 && sizeof(S0) == 4 && sizeof(S1) == 4, "hipsim: inline asm VGPR operands are 32-bit");
  const std::uint32_t a = __builtin_bit_cast(std::uint32_t, s0), b = __builtin_bit_cast(std::uint32_t, s1);
  const double lo = double(__hipsim_f16_to_f32(std::uint16_t(a))) * double(__hipsim_f16_to_f32(std::uint16_t(b)));
  const double hi =
      double(__hipsim_f16_to_f32(std::uint16_t(a >> 16))) * double(__hipsim_f16_to_f32(std::uint16_t(b >> 16)));
  return __builtin_bit_cast(D, float(double(__builtin_bit_cast(float, acc)) + lo + hi));
}
}  // namespace hipsim_detail
