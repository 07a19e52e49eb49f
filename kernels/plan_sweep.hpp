// A kernel's plan sweep: what its host plan says about its launches on one arch profile, swept over the shapes and
// options its dispatch predicate admits. Each kernel entry (kernel_registry.hpp) offers one sweep per device
// kernel it launches; `dsv4check kernels` checks each AMD code object's kernel against the sweeps that name it.
//
// Rules: the numbers come from the plan itself (make_*_plan), never re-derived; a device kernel is named by its
// qualified C++ name with anonymous namespaces left out ("dsv4::kernels::merge::merge_kernel"), matched exactly;
// several sweeps may name one device kernel (two ops launching one kernel), and the check takes the largest of
// each number. A device kernel that no sweep names is a violation of the budget check.
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels {

// The largest numbers over a sweep's admitted plans.
struct LaunchBudget {
  std::size_t dynamic_lds = 0;            // largest dynamic LDS any admitted plan launches with (bytes)
  std::optional<std::size_t> static_lds;  // the plans' static LDS (what the kernel declares), largest if they differ
  int workgroup_size = 0;                 // largest workgroup; 0: the code object's own (several instances)
  std::size_t admitted = 0;               // admitted plans (0: the sweep admitted nothing, a broken sweep)
  std::string source;                     // "<what> plan sweep (<profile> profile), N admitted plans[; ...]"
};

struct PlanSweep {
  std::string device_kernel;  // qualified __global__ function name, anonymous namespaces left out
  std::function<LaunchBudget(const port::ArchProfile&)> sweep;
};

// Running maxima of one sweep. Plans that disagree on static LDS are reported in the source text (the largest is
// what the object is checked against).
struct PlanTally {
  std::size_t admitted = 0, dynamic_lds = 0;
  std::optional<std::size_t> static_lo, static_hi;
  int block = 0;

  void add(std::size_t dynamic, std::size_t static_lds, int workgroup) {
    ++admitted;
    dynamic_lds = std::max(dynamic_lds, dynamic);
    static_lo = std::min(static_lo.value_or(static_lds), static_lds);
    static_hi = std::max(static_hi.value_or(static_lds), static_lds);
    block = std::max(block, workgroup);
  }

  LaunchBudget finish(const std::string& what, const port::ArchProfile& prof) const {
    LaunchBudget b;
    b.dynamic_lds = dynamic_lds;
    b.static_lds = static_hi.value_or(0);
    b.workgroup_size = block;
    b.admitted = admitted;
    b.source = what + " plan sweep (" + std::string(prof.name) + " profile), " + std::to_string(admitted) +
               " admitted plans";
    if (static_lo != static_hi)
      b.source += "; the plans disagree on static LDS (" + std::to_string(*static_lo) + ".." +
                  std::to_string(*static_hi) + " B)";
    return b;
  }
};

}  // namespace dsv4::kernels
