// Runner helpers of kernels/runner_support.hpp.
#include "kernels/runner_support.hpp"

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"

namespace dsv4::kernels {

const port::ArchProfile& run_arch(const std::string& op, const RunOptions& o) {
  if (o.arch.empty()) return port::device_profile();
  const auto a = port::parse_arch(o.arch);
  if (!a) throw InputError(op + ": unknown arch '" + o.arch + "' (gfx942, gfx950, sm_90)");
  return port::profile(*a);
}

int effective_wave_size(const port::ArchProfile& arch) {
  if (port::sim::sim_active() && port::sim::options().wave_size != 0) return port::sim::options().wave_size;
  return arch.wave_size;
}

}  // namespace dsv4::kernels
