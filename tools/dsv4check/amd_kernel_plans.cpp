// Host-plan expectations from the kernel entries' plan sweeps (see amd_kernel_plans.hpp).
#include "tools/dsv4check/amd_kernel_plans.hpp"

#include <algorithm>

#include "kernels/kernel_registry.hpp"
#include "kernels/port/arch.hpp"

namespace dsv4::amd {

namespace {

// The arch profile a plan is made for: gfx90a has gfx942's LDS capacity (64 KiB) and wave size, and the plans have
// no gfx90a profile of their own.
const port::ArchProfile& plan_profile(std::string_view arch) {
  return arch == "gfx950" ? port::kGfx950 : port::kGfx942;
}

}  // namespace

std::string device_kernel_name(std::string_view demangled) {
  std::string s(demangled);
  for (const std::string_view anon : {"(anonymous namespace)::", "{anonymous}::"})
    for (std::size_t at; (at = s.find(anon)) != std::string::npos;) s.erase(at, anon.size());
  // A function template's demangled name starts with its return type ("void "); a plain function's does not.
  if (const std::size_t open = s.find_first_of("<("), space = s.rfind(' ', open);
      space != std::string::npos && open != std::string::npos)
    s.erase(0, space + 1);
  return s.substr(0, s.find_first_of("<("));
}

std::optional<KernelExpectation> plan_expectation(std::string_view demangled, std::string_view arch) {
  const std::string name = device_kernel_name(demangled);
  const port::ArchProfile& prof = plan_profile(arch);
  std::optional<KernelExpectation> e;
  for (const kernels::PlanSweep* p : kernels::KernelRegistry::instance().plan_sweeps()) {
    if (p->device_kernel != name) continue;
    const kernels::LaunchBudget b = p->sweep(prof);
    if (!e) e.emplace(), e->static_lds = b.static_lds;
    e->dynamic_lds = std::max(e->dynamic_lds, b.dynamic_lds);
    if (b.static_lds) e->static_lds = std::max(e->static_lds.value_or(0), *b.static_lds);
    e->workgroup_size = std::max(e->workgroup_size, b.workgroup_size);
    e->source += (e->source.empty() ? "" : " + ") + b.source;
  }
  return e;
}

}  // namespace dsv4::amd
