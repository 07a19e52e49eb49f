// The runtime's whole-wave functions behind hipsim/amdgcn_dpp.h (DPP moves, LDS-crossbar permutes, swizzles). Plain C
// types only; called only through that header, as the fn of __hipsim_wave_collective.
#pragma once
#include <cstdint>

#include "hipsim/abi.h"

extern "C" {
// One lane's operands of a DPP move: old and src are the value's bytes (1-8 of them, zero-extended); ctrl, masks and
// bound_ctrl are immediates (taken from the first lane). out[l] -> std::uint64_t.
struct __hipsim_dpp_operands {
  std::uint64_t old, src;
  int ctrl, row_mask, bank_mask, bound_ctrl;
};
void __hipsim_dpp(const void* user, int lanes, const void* const* in, void* const* out);
// True when ctrl is a DPP control of gfx9/CDNA (the table in hipsim/runtime/amdgcn_dpp.cpp).
constexpr bool __hipsim_dpp_ctrl_valid(int c) {
  return (c >= 0x000 && c <= 0x0ff) || (c >= 0x101 && c <= 0x10f) || (c >= 0x111 && c <= 0x11f) ||
         (c >= 0x121 && c <= 0x12f) || c == 0x130 || c == 0x134 || c == 0x138 || c == 0x13c ||
         (c >= 0x140 && c <= 0x143) || (c >= 0x150 && c <= 0x15f);
}
// One lane's operands of a crossbar op: in[l] -> {int a; int data;}, out[l] -> int.
// user: 0 ds_bpermute (a = byte address), 1 ds_permute (a = byte address), 2 ds_swizzle (a = offset pattern).
struct __hipsim_xbar_operands { int a, data; };
void __hipsim_xbar(const void* user, int lanes, const void* const* in, void* const* out);
// True when pattern fits the instruction's 16-bit offset field; every such value has a meaning (CDNA4 ISA guide
// 12.12, DS_SWIZZLE_B32: FFT, rotate, quad-perm and bitmask modes; hipsim/runtime/amdgcn_dpp.cpp).
constexpr bool __hipsim_swizzle_valid(int p) { return p >= 0 && p <= 0xFFFF; }
}
