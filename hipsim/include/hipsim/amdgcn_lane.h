// CDNA cross-lane builtins for plain-HIP kernels on the sim: readfirstlane, readlane (whole-wave, through
// __hipsim_wave_collective and the runtime's __hipsim_lane_select) and mbcnt_lo/hi (per lane). clang-22 has no
// __builtin_amdgcn_writelane (V_WRITELANE_B32 is reached through inline asm there): a call is a compile error here,
// as it is in clang.
// Rules (AMD CDNA3 ISA guide): "VOP1 instructions" V_READFIRSTLANE_B32; "VOP3 instructions" V_READLANE_B32,
// (lane select scalar: taken from the first lane), V_MBCNT_LO_U32_B32 /
// V_MBCNT_HI_U32_B32 (acc + popcount of mask bits below this lane in its 32-lane half).
#pragma once
#include <cstdint>
#include <source_location>

#include "hipsim/abi_lane.h"

namespace hipsim_detail {
struct LaneOperands { int value, lane, old; };
inline int lane_select(int op, int value, int lane, int old, const std::source_location& loc) {
  LaneOperands in{value, lane, old};
  int out = 0;
  __hipsim_wave_collective(__hipsim_lane_select, reinterpret_cast<const void*>(static_cast<std::intptr_t>(op)), &in,
                           &out, &loc);
  return out;
}
}  // namespace hipsim_detail

inline int __builtin_amdgcn_readfirstlane(int v, std::source_location loc = std::source_location::current()) {
  return hipsim_detail::lane_select(0, v, 0, 0, loc);
}
inline int __builtin_amdgcn_readlane(int v, int lane, std::source_location loc = std::source_location::current()) {
  return hipsim_detail::lane_select(1, v, lane, 0, loc);
}
int __builtin_amdgcn_writelane(int, int, int) =
    delete("hipsim: not a clang-22 builtin (use of undeclared identifier in clang; v_writelane_b32 is inline asm only)");
inline unsigned __builtin_amdgcn_mbcnt_lo(unsigned mask, unsigned acc) {
  const int l = __hipsim_lane();
  const unsigned below = l >= 32 ? 0xffffffffu : ((1u << l) - 1u);
  return acc + __builtin_popcount(mask & below);
}
inline unsigned __builtin_amdgcn_mbcnt_hi(unsigned mask, unsigned acc) {
  const int l = __hipsim_lane();
  const unsigned below = l < 32 ? 0u : ((1ull << (l - 32)) - 1ull);
  return acc + __builtin_popcount(mask & below);
}
