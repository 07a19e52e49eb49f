// The whole-wave bodies of the CDNA cross-lane builtins (hipsim/amdgcn_lane.h), run once per wave by
// __hipsim_wave_collective. Rules: AMD CDNA3 ISA guide, "VOP1 instructions" V_READFIRSTLANE_B32 (the value of the
// first active lane) and "VOP3 instructions" V_READLANE_B32 (lane select taken modulo the wave size).
#include "hipsim/abi_lane.h"

#include <cstdint>

namespace {
struct Operands { int value, lane, old; };
}  // namespace

extern "C" void __hipsim_lane_select(const void* user, int lanes, const void* const* in, void* const* out) {
  const int op = static_cast<int>(reinterpret_cast<std::intptr_t>(user));
  const auto* o0 = static_cast<const Operands*>(in[0]);
  for (int l = 0; l < lanes; ++l) {
    *static_cast<int*>(out[l]) = op == 0 ? o0->value : static_cast<const Operands*>(in[o0->lane & (lanes - 1)])->value;
  }
}
