// Helpers shared by the kernel-registry runners (host side, every backend): the arch profile a run targets and
// the wave size its kernels will see.
#pragma once
#include <string>

#include "kernels/kernel_registry.hpp"
#include "kernels/port/arch.hpp"

namespace dsv4::kernels {

// RunOptions::arch parsed ("gfx942", "gfx950", "sm_90"); empty: the device's (on sim: the simulated) profile.
// An unknown name is an InputError naming the op.
const port::ArchProfile& run_arch(const std::string& op, const RunOptions& o);

// The wave size kernels see on `arch`: the profile's, unless the simulator is told to run another (sim::Options).
int effective_wave_size(const port::ArchProfile& arch);

}  // namespace dsv4::kernels
