// Collects the sim's findings of a run (see sim_findings.hpp); their JSON and text are in sim_findings_data.cpp.
#include "fuzz/harness/sim_findings.hpp"

#include <algorithm>

#include "kernels/port/sim.hpp"

namespace dsv4::fuzz {

void clear_sim_findings() {
  if (port::sim::sim_active()) (void)port::sim::take_report();
}

SimFindings collect_sim_findings() {
  SimFindings s;
  if (!port::sim::sim_active()) return s;
  const port::sim::Report& r = port::sim::report();
  for (const port::sim::Violation& v : r.violations) s.items.push_back({std::string(port::sim::to_string(v.kind)), v.to_string()});
  s.total = std::max(r.total, s.items.size());
  return s;
}

}  // namespace dsv4::fuzz
