// The runtime's whole-wave functions behind hipsim/amdgcn_lane.h (the CDNA cross-lane builtins). Plain C types only;
// called only through that header.
#pragma once
#include "hipsim/abi.h"

extern "C" {
// fn for __hipsim_wave_collective: in[l] -> {int value; int lane;}, out[l] -> int.
// user: 0 readfirstlane (lane 0's value: the sim runs every lane), 1 readlane.
void __hipsim_lane_select(const void* user, int lanes, const void* const* in, void* const* out);
}
