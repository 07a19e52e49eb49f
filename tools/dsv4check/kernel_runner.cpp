// KernelRunner registry and the built-in "reference" backend; see kernel_runner.hpp.
#include "tools/dsv4check/kernel_runner.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "fuzz/harness/under_test.hpp"
#include "kernels/kernel_registry.hpp"
#include "oracle/poison.hpp"
#include "tools/dsv4check/usage_error.hpp"

namespace dsv4::cli {

void register_builtin_kernel_runners();  // kernel_runners_builtin.cpp

namespace {

using RunnerMap = std::map<std::pair<std::string, std::string>, KernelRunnerFn>;

RunnerMap& storage() {
  static RunnerMap r;
  return r;
}

// The registered runners, the built-in ones added on first use.
RunnerMap& runners() {
  static bool init = [] {
    register_builtin_kernel_runners();  // calls add_kernel_runner, which uses storage() directly
    return true;
  }();
  (void)init;
  return storage();
}

KernelRun run_reference_as_kernel(const OpDescriptor& d, const OpCase& c, const KernelRunOptions& o) {
  KernelRun r;
  r.outputs = d.reference(c);
  if (o.streams > 1) r.notes.push_back("--streams ignored: the reference backend runs single-stream on the host");
  return r;
}

// The kernels/ registry's kernel for d on this build's backend, through the one harness every tool shares
// (fuzz/harness/under_test.hpp: poisoned outputs shaped like the reference's, plan JSON, tile map).
KernelRun run_registered_kernel(const OpDescriptor& d, const OpCase& c, const KernelRunOptions& o) {
  fuzz::UnderTestOptions uo;
  uo.backend = kernels::backend_name();
  if (o.arch) uo.arch = std::string(port::profile(*o.arch).name);
  uo.variant = o.variant;
  uo.seed = o.seed;
  fuzz::UnderTestRun u = fuzz::run_under_test(d, c, d.reference(c), uo);
  KernelRun r;
  r.outputs = std::move(u.outputs);
  r.plan = std::move(u.plan);
  r.tiles = std::move(u.tiles);
  r.poison = u.poison;
  r.sim_findings = std::move(u.sim_findings);
  if (o.streams > 1) r.notes.push_back("--streams: this kernel runner runs one stream");
  return r;
}

}  // namespace

std::optional<oracle::TileMap> tile_map_from_plan(const Json& plan) { return fuzz::tile_map_from_plan(plan); }

void add_kernel_runner(const std::string& op, const std::string& backend, KernelRunnerFn fn) {
  if (backend == "reference") throw std::logic_error("backend 'reference' is built in");
  auto& r = storage();
  if (!r.emplace(std::make_pair(op, backend), std::move(fn)).second)
    throw std::logic_error(fmt::format("kernel runner for op '{}' on backend '{}' registered twice", op, backend));
}

std::vector<std::string> kernel_backends(const OpDescriptor& d) {
  std::vector<std::string> b;
  if (d.reference) b.push_back("reference");
  if (kernels::KernelRegistry::instance().find(d.name)) b.push_back(kernels::backend_name());
  for (auto& [key, fn] : runners())
    if (key.first == d.name) b.push_back(key.second);
  return b;
}

const KernelRunnerFn& find_kernel_runner(const OpDescriptor& d, const std::string& backend) {
  static const KernelRunnerFn reference = run_reference_as_kernel;
  if (backend == "reference" && d.reference) return reference;
  auto& r = runners();
  if (auto it = r.find({d.name, backend}); it != r.end()) return it->second;
  if (backend == kernels::backend_name()) {
    if (const kernels::KernelEntry* k = kernels::KernelRegistry::instance().find(d.name)) {
      (void)k;
      auto [it, added] = r.emplace(std::make_pair(d.name, backend), run_registered_kernel);
      return it->second;
    }
  }
  std::string have;
  for (auto& b : kernel_backends(d)) have += (have.empty() ? "" : ", ") + b;
  throw UsageError(fmt::format("no kernel for op '{}' on backend '{}' (backends with a kernel for '{}': {}; this build's "
                               "kernels run on backend '{}')", d.name, backend, d.name, have.empty() ? "none" : have,
                               kernels::backend_name()));
}

std::string format_plan(const Json& plan) {
  if (plan.is_null()) return "plan: (none: this backend has no kernel plan)\n";
  if (!plan.is_object()) return "plan: " + plan.dump() + "\n";
  std::string s = "plan:\n";
  for (auto it = plan.begin(); it != plan.end(); ++it) {
    if (it.key() == "lds_capacity") continue;
    if (it.key() == "lds_bytes" && plan.contains("lds_capacity") && plan["lds_capacity"].is_number()) {
      const double cap = plan["lds_capacity"].get<double>();
      auto line = [&](const std::string& label, const Json& v) {
        if (!v.is_number()) return fmt::format("  {}: {}\n", label, v.dump());
        const double used = v.get<double>();
        return fmt::format("  {}: {} of {} bytes ({:.1f}%){}\n", label, v.dump(), plan["lds_capacity"].dump(),
                           cap > 0 ? 100.0 * used / cap : 0.0, used > cap ? "  ** EXCEEDS CAPACITY **" : "");
      };
      if (it->is_object())
        for (auto ph = it->begin(); ph != it->end(); ++ph) s += line("LDS " + ph.key(), *ph);
      else
        s += line("LDS", *it);
      continue;
    }
    s += fmt::format("  {}: {}\n", it.key(), it->is_string() ? it->get<std::string>() : it->dump());
  }
  return s;
}

}  // namespace dsv4::cli
