// KernelRunner registry and the built-in "reference" backend; see kernel_runner.hpp.
#include "tools/dsv4check/kernel_runner.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "kernels/kernel_registry.hpp"
#include "oracle/poison.hpp"
#include "tools/dsv4check/command.hpp"

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

// The kernels/ registry's kernel for d on this build's backend, adapted: outputs shaped like the reference's
// are allocated and poisoned here, the kernel fills them, its plan JSON comes back with a tile map.
KernelRun run_registered_kernel(const kernels::KernelEntry& k, const OpDescriptor& d, const OpCase& c,
                                const KernelRunOptions& o) {
  const Outputs shapes = d.reference(c);
  KernelRun r;
  for (auto& [n, t] : shapes) {
    Tensor out = Tensor::empty(t.dtype(), t.shape());
    oracle::poison(out, oracle::PoisonPattern::primary);
    r.outputs[n] = out;
  }
  r.poison = oracle::PoisonPattern::primary;
  kernels::RunOptions ro;
  if (o.arch) ro.arch = std::string(port::profile(*o.arch).name);
  ro.variant = o.variant;
  ro.seed = o.seed;
  if (o.streams > 1) r.notes.push_back("--streams: this kernel runner runs one stream");
  r.plan = k.run(c, r.outputs, ro);
  r.tiles = tile_map_from_plan(r.plan);
  return r;
}

}  // namespace

std::optional<oracle::TileMap> tile_map_from_plan(const Json& plan) {
  if (!plan.is_object() || !plan.contains("tile_map") || !plan["tile_map"].is_object()) return std::nullopt;
  const Json& t = plan["tile_map"];
  oracle::TileMap m;
  m.output = t.value("output", std::string());
  m.rows.tile = t.value("row_tile", std::int64_t{0});
  m.rows.name = t.value("row_name", std::string("row tile"));
  m.cols.tile = t.value("col_tile", std::int64_t{0});
  m.cols.name = t.value("col_name", std::string("column tile"));
  m.k_shards = plan.value("k_shards", std::int64_t{0});
  m.k_shard_size = plan.value("k_shard_size", std::int64_t{0});
  m.plan = plan.value("text", plan.value("kernel", std::string()));
  return m;
}

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
      auto [it, added] = r.emplace(std::make_pair(d.name, backend), [k](const OpDescriptor& op, const OpCase& c,
                                                                         const KernelRunOptions& o) {
        return run_registered_kernel(*k, op, c, o);
      });
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
