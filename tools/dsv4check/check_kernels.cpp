// Kernel rows of `dsv4check check`; see check_kernels.hpp.
#include "tools/dsv4check/check_kernels.hpp"

#include <random>

#include <fmt/format.h>

#include "fuzz/harness/under_test.hpp"
#include "oracle/judge.hpp"
#include "oracle/report.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::cli {

namespace {

SelfCheckResult check_op(const std::string& op, const KernelCheckOptions& o) {
  fuzz::prepare_registry();
  const OpDescriptor& d = Registry::instance().get(op);
  const kernels::KernelEntry* k = kernels::KernelRegistry::instance().find(op);
  const std::string backend = o.backend.empty() ? kernels::backend_name() : o.backend;
  SelfCheckResult r;
  if (backend != "reference" && !k) {
    r.status = "no kernel";
    r.detail = fmt::format("no {} kernel yet; reference only", backend);
    return r;
  }
  std::vector<Json> shapes = (k && backend != "reference" && !k->check_shapes.empty()) ? k->check_shapes : d.default_shapes;
  std::uint64_t cases = 0;
  double worst = 0;
  std::string worst_what;
  for (std::size_t si = 0; si < shapes.size(); ++si)
    for (int s = 1; s <= o.seeds; ++s) {
      const std::uint64_t seed = 1000 * (si + 1) + s;
      std::mt19937_64 rng(seed);
      OpCase c = d.generate(rng, shapes[si]);
      validate_case(d, c);
      Outputs expected = d.reference(c);
      fuzz::UnderTestOptions uo;
      uo.backend = backend;
      uo.arch = o.arch;
      uo.seed = seed;
      fuzz::UnderTestRun run = fuzz::run_under_test(d, c, expected, uo);
      oracle::JudgeOptions jo;
      jo.poison = run.poison;
      oracle::JudgeResult j = oracle::judge(d, c, expected, run.outputs, jo, run.tiles ? &*run.tiles : nullptr);
      ++cases;
      for (const auto& v : j.outputs) {
        if (v.metric && *v.metric > worst) {
          worst = *v.metric;
          worst_what = v.output + " (" + v.metric_name + ")";
        }
        if (!v.pass)
          r.fail(fmt::format("{} --shape {} --seed {}: {}", op, shapes[si].dump(), seed, oracle::summary_line(v)));
      }
    }
  r.counts = {{"shapes", shapes.size()}, {"cases", cases}};
  r.detail = fmt::format("{}: max {:.3g} {}", backend, worst, worst_what);
  return r;
}

}  // namespace

std::vector<SelfCheck> kernel_checks(const KernelCheckOptions& o) {
  std::vector<SelfCheck> rows;
  for (const OpDescriptor* d : Registry::instance().all()) {
    if (!d->generate || !d->reference) continue;
    const std::string op = d->name;
    rows.push_back({"kernels", op, [op, o] { return check_op(op, o); }});
  }
  return rows;
}

}  // namespace dsv4::cli
