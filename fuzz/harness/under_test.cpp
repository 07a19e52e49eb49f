// Implementation under test: reference or registered kernel; see under_test.hpp.
#include "fuzz/harness/under_test.hpp"

#include <fmt/format.h>

#include <mutex>

#include "fuzz/generators/op_generators.hpp"
#include "oracle/default_policies.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::fuzz {

std::vector<std::string> available_backends(const OpDescriptor& d) {
  std::vector<std::string> r;
  if (d.reference) r.push_back("reference");
  if (kernels::KernelRegistry::instance().find(d.name)) r.push_back(kernels::backend_name());
  return r;
}

void prepare_registry() {
  static std::once_flag once;
  std::call_once(once, [] {
    oracle::require_default_policies(Registry::instance());
    install_generators();  // the fuzz value layer ("values" / "attr.*" shape keys) and shape spaces
  });
}

std::optional<oracle::TileMap> tile_map_from_plan(const Json& plan) {
  if (!plan.is_object() || !plan.contains("tile_map") || !plan["tile_map"].is_object()) return std::nullopt;
  const Json& t = plan["tile_map"];
  oracle::TileMap m;
  m.rows.tile = t.value("row_tile", std::int64_t{0});
  m.rows.name = t.value("row_name", std::string("row tile"));
  m.cols.tile = t.value("col_tile", std::int64_t{0});
  m.cols.name = t.value("col_name", std::string("col tile"));
  m.row_dims = t.value("row_dims", -1);
  m.output = t.value("output", std::string());
  m.k_shards = plan.value("k_shards", std::int64_t{0});
  m.k_shard_size = plan.value("k_shard_size", std::int64_t{0});
  m.plan = plan.value("text", plan.value("kernel", std::string()));
  return m;
}

UnderTestRun run_under_test(const OpDescriptor& d, const OpCase& c, const Outputs& expected, const UnderTestOptions& o) {
  UnderTestRun run;
  if (o.backend == "reference") {
    if (!d.reference) throw InputError(d.name + ": no reference to run as the implementation under test");
    run.outputs = d.reference(c);
    return run;
  }
  if (o.backend != kernels::backend_name())
    throw InputError(fmt::format("{}: backend '{}' is not built in (this build runs kernels on '{}'; "
                                 "rebuild with -DDSV4_BACKEND={} or use --backend reference)",
                                 d.name, o.backend, kernels::backend_name(), o.backend));
  const kernels::KernelEntry* k = kernels::KernelRegistry::instance().find(d.name);
  if (!k) {
    std::string have;
    for (auto* e : kernels::KernelRegistry::instance().all()) have += (have.empty() ? "" : ", ") + e->op;
    throw InputError(fmt::format("no kernel for op '{}' on backend '{}' (kernels: {})", d.name, o.backend,
                                 have.empty() ? "none" : have));
  }
  for (auto& [name, e] : expected) {
    Tensor t = Tensor::empty(e.dtype(), e.shape());
    oracle::poison(t, oracle::PoisonPattern::primary);
    run.outputs[name] = t;
  }
  run.poison = oracle::PoisonPattern::primary;
  kernels::RunOptions ko;
  ko.arch = o.arch;
  ko.variant = o.variant;
  ko.seed = o.seed;
  ko.repeats = o.repeats;
  clear_sim_findings();
  run.plan = k->run(c, run.outputs, ko);
  run.sim_findings = collect_sim_findings();
  run.tiles = tile_map_from_plan(run.plan);
  return run;
}

}  // namespace dsv4::fuzz
