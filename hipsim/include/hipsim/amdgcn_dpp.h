// CDNA data-sharing builtins for plain-HIP kernels on the sim: mov_dpp / update_dpp (every gfx9 DPP control),
// ds_bpermute, ds_permute, ds_swizzle, wave_barrier. Each runs once per wave through __hipsim_wave_collective; the
// emulation is hipsim/runtime/amdgcn_dpp.cpp (rules and ISA sections there). This header only marshals operands.
// Rules (clang-22, checked against its amdgcn front end and back end):
// - mov_dpp / update_dpp take any integer or floating type of 1-8 bytes and return that type, bit-preserving
//   (sub-dword values are zero-extended to a dword, wider ones move dword by dword with the same lane map); pointers,
//   vectors and 16-byte integers (clang's front end takes those, its back end fails) are rejected. update_dpp's old
//   and src have one type. One difference: clang-22's Sema still types the call int (its code generator keeps the
//   argument's type), so in clang `auto r = __builtin_amdgcn_mov_dpp(float_x, ...)` is an int holding the float's
//   bits; here r is a float. Name the type.
// - ds_bpermute / ds_permute / ds_swizzle are int builtins: a float argument is converted by value, as in clang.
// - dpp_ctrl, the masks, bound_ctrl and the swizzle pattern are immediates in clang; a constant that is not a gfx9
//   DPP control (or swizzle mode the sim models) is a compile error here, a run-time value is checked when it runs.
// - mov_dpp's lanes that the masks (or bound_ctrl 0) leave unwritten keep the destination's old contents, which
//   LLVM leaves undefined (poison): the sim gives them all bits set, so a result that relies on them shows.
// - wave_barrier emits no instruction on CDNA (a scheduling barrier for the compiler); on the sim lanes of a wave
//   already run in lockstep, so it is a no-op and not a wave-collective (a lane may legally skip it).
#pragma once
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "hipsim/abi_dpp.h"

namespace hipsim_detail {
template <class T>
concept DppValue = (std::is_arithmetic_v<T> || std::is_same_v<T, _Float16> || std::is_same_v<T, __bf16>) &&
                   sizeof(T) <= 8;

template <class T>
T dpp(T old, T src, int ctrl, int row_mask, int bank_mask, bool bound_ctrl, const std::source_location& loc) {
  __hipsim_dpp_operands in{0, 0, ctrl, row_mask, bank_mask, bound_ctrl ? 1 : 0};
  __builtin_memcpy(&in.old, &old, sizeof(T));
  __builtin_memcpy(&in.src, &src, sizeof(T));
  std::uint64_t out = 0;
  __hipsim_wave_collective(__hipsim_dpp, nullptr, &in, &out, &loc);
  T r;
  __builtin_memcpy(&r, &out, sizeof(T));
  return r;
}

inline int xbar(int op, int a, int data, const std::source_location& loc) {
  __hipsim_xbar_operands in{a, data};
  int out = 0;
  __hipsim_wave_collective(__hipsim_xbar, reinterpret_cast<const void*>(static_cast<std::intptr_t>(op)), &in, &out,
                           &loc);
  return out;
}

template <class T>
T dpp_poison() {
  const std::uint64_t ones = ~std::uint64_t(0);
  T r;
  __builtin_memcpy(&r, &ones, sizeof(T));
  return r;
}
}  // namespace hipsim_detail

#define HIPSIM_DPP_CTRL_CHECK                                                                                  \
  __attribute__((diagnose_if(!__hipsim_dpp_ctrl_valid(dpp_ctrl),                                               \
                             "hipsim: invalid dpp_ctrl value: not a gfx9 DPP control (quad_perm 0x00-0xFF, "   \
                             "row_shl 0x101-0x10F, row_shr 0x111-0x11F, row_ror 0x121-0x12F, wave_shl 0x130, " \
                             "wave_rol 0x134, wave_shr 0x138, wave_ror 0x13C, row_mirror 0x140, "              \
                             "row_half_mirror 0x141, row_bcast15 0x142, row_bcast31 0x143, "                   \
                             "row_newbcast 0x150-0x15F)",                                                      \
                             "error")))

template <hipsim_detail::DppValue T>
inline T __builtin_amdgcn_update_dpp(T old, T src, int dpp_ctrl, int row_mask, int bank_mask, bool bound_ctrl,
                                     std::source_location loc = std::source_location::current())
    HIPSIM_DPP_CTRL_CHECK {
  return hipsim_detail::dpp(old, src, dpp_ctrl, row_mask, bank_mask, bound_ctrl, loc);
}
template <hipsim_detail::DppValue T>
inline T __builtin_amdgcn_mov_dpp(T src, int dpp_ctrl, int row_mask, int bank_mask, bool bound_ctrl,
                                  std::source_location loc = std::source_location::current()) HIPSIM_DPP_CTRL_CHECK {
  return hipsim_detail::dpp(hipsim_detail::dpp_poison<T>(), src, dpp_ctrl, row_mask, bank_mask, bound_ctrl, loc);
}
#undef HIPSIM_DPP_CTRL_CHECK

inline int __builtin_amdgcn_ds_bpermute(int addr, int src, std::source_location loc = std::source_location::current()) {
  return hipsim_detail::xbar(0, addr, src, loc);
}
inline int __builtin_amdgcn_ds_permute(int addr, int src, std::source_location loc = std::source_location::current()) {
  return hipsim_detail::xbar(1, addr, src, loc);
}
inline int __builtin_amdgcn_ds_swizzle(int src, int pattern,
                                       std::source_location loc = std::source_location::current())
    __attribute__((diagnose_if(!__hipsim_swizzle_valid(pattern),
                               "hipsim: ds_swizzle pattern outside the 16-bit offset field (0 to 0xFFFF)",
                               "error"))) {
  return hipsim_detail::xbar(2, pattern, src, loc);
}
inline void __builtin_amdgcn_wave_barrier() {}
