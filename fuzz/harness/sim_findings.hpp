// What the sim executor found during one run of a kernel (LDS out of range, uninitialised reads, races,
// divergence, deadlocks, ...: kernels/port/sim.hpp's violations), as data: the harness collects them for
// every run (UnderTestRun::sim_findings), and repro, fuzz and the saved fixtures carry them beside the
// oracle's verdict. Off the sim backend a run has none.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz {

struct SimFinding {
  std::string kind;  // "lds_out_of_range", "lds_hazard", ... (sim::to_string(ViolationKind))
  std::string text;  // the sim's one-line description (kernel, launch, block, thread, array, offset, size)
};

struct SimFindings {
  std::vector<SimFinding> items;  // the first ones the sim stored (Options::max_violations)
  std::size_t total = 0;          // including those only counted
  bool empty() const { return total == 0 && items.empty(); }
  Json to_json() const;  // {"total": n, "items": [{"kind", "text"}, ...]}
  static SimFindings from_json(const Json& j);  // null or missing keys: none
  // "sim findings: 2 (lds_out_of_range 2)\n  lds_out_of_range in kernel ...\n", or "sim findings: none\n".
  std::string text() const;
  // The same on one line, findings separated by " | " (for fixture notes and summaries).
  std::string one_line() const;
};

// Forgets what the sim recorded so far (call before a run). No-op off the sim backend.
void clear_sim_findings();
// What the sim recorded since the last clear (its report is left in place for other readers).
SimFindings collect_sim_findings();

}  // namespace dsv4::fuzz
