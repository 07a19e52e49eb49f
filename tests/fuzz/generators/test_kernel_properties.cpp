// Kernel properties over generated cases, for EVERY kernel in the kernel registry (kernels that land
// later are covered without touching this file): (1) the kernel matches the float64 reference under the
// op's default oracle on cases from the op's generator spec at test scale, for every value distribution
// including the op's specials (a plan refusal, CannotImplement, is a discard); (2) kernels whose op
// contract says deterministic give bitwise-equal outputs on two runs under different random sim
// schedules; (3) the plan JSON keeps its invariants (every LDS phase within the declared capacity, grid
// and block dims >= 1, tiles > 0). A failure prints the case's one-line `dsv4check repro` command.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/generators/rc_generators.hpp"
#include "oracle/judge.hpp"
#include "oracle/report.hpp"
#include "tests/fuzz/generators/rc_short.hpp"

namespace dsv4::fuzz {
namespace {

std::vector<std::string> kernel_ops() {
  std::vector<std::string> v;
  for (const auto* k : kernels::KernelRegistry::instance().all()) v.push_back(k->op);
  return v;
}

UnderTestOptions sim_options(std::uint64_t schedule_seed = 0) {
  UnderTestOptions o;
  o.backend = kernels::backend_name();
  o.seed = schedule_seed;
  return o;
}

// Plan invariants readable from the plan JSON convention of kernels/kernel_registry.hpp.
std::string plan_violation(const Json& plan) {
  if (!plan.is_object()) return "";
  if (plan.contains("lds_bytes") && plan["lds_bytes"].is_object() && plan.contains("lds_capacity")) {
    const std::int64_t cap = plan["lds_capacity"].get<std::int64_t>();
    for (auto it = plan["lds_bytes"].begin(); it != plan["lds_bytes"].end(); ++it)
      if (it->is_number() && it->get<std::int64_t>() > cap)
        return "LDS phase '" + it.key() + "' " + it->dump() + " B > capacity " + std::to_string(cap);
  }
  for (const char* k : {"grid", "block"})
    if (plan.contains(k) && plan[k].is_array())
      for (const auto& d : plan[k])
        if (d.is_number() && d.get<std::int64_t>() < 1) return std::string(k) + " has a dim < 1: " + plan[k].dump();
  if (plan.contains("workspace_bytes") && plan["workspace_bytes"].is_number() && plan["workspace_bytes"].get<double>() < 0)
    return "negative workspace_bytes";
  if (plan.contains("tile_map") && plan["tile_map"].is_object())
    for (const char* k : {"row_tile", "col_tile"})
      if (plan["tile_map"].contains(k) && plan["tile_map"][k].get<std::int64_t>() < 0) return std::string("tile_map.") + k + " < 0";
  return "";
}

// Kernels whose op contract says deterministic (OpGenSpec::deterministic).
std::vector<std::string> deterministic_kernel_ops() {
  std::vector<std::string> v;
  for (const auto& op : kernel_ops())
    if (const OpGenSpec* s = find_gen_spec(op); s && s->deterministic) v.push_back(op);
  return v;
}

class KernelProps : public ::testing::TestWithParam<std::string> {};
class KernelDeterminism : public ::testing::TestWithParam<std::string> {};

// (1) + (3): kernel vs reference under the default oracle, plan invariants, every value distribution.
TEST_P(KernelProps, MatchesReferenceOnGeneratedCases) {
  const std::string opname = GetParam();
  prepare_registry();
  const OpGenSpec* spec = find_gen_spec(opname);
  ASSERT_NE(spec, nullptr) << "kernel for op '" << opname << "' has no generator spec (fuzz/generators/)";
  const OpDescriptor& d = Registry::instance().get(opname);
  int judged = 0, refused = 0;
  for (ValueDist v : kAllValueDists) {
    SCOPED_TRACE(value_dist_name(v));
    test::check_short(2, [&] {
      const CaseSpec c = *rcgen::case_specs(opname, ShapeScale::test, v);
      const UnderTestOptions uo = sim_options();
      RC_LOG() << "repro: " << repro_command(c, uo) << "\n";
      PreparedCase p = prepare_case(c);
      RC_PRE(p.ok);  // a generator/contract discard (must not happen: the specs test checks it)
      UnderTestRun run;
      try {
        run = run_under_test(d, p.c, p.expected, uo);
      } catch (const kernels::CannotImplement&) {
        ++refused;
        RC_DISCARD("outside the kernel's declared limits");
      }
      ++judged;
      const std::string pv = plan_violation(run.plan);
      RC_LOG() << "plan: " << run.plan.dump() << "\n";
      RC_ASSERT(pv == "");
      oracle::JudgeOptions jo;
      jo.poison = run.poison;
      const oracle::JudgeResult r = oracle::judge(d, p.c, p.expected, run.outputs, jo, run.tiles ? &*run.tiles : nullptr);
      for (const auto& o : r.outputs)
        if (!o.pass) RC_LOG() << oracle::summary_line(o) << "\n";
      RC_ASSERT(r.pass);
    });
  }
  std::printf("[  CASES   ] %s: %d judged, %d refused by the plan\n", opname.c_str(), judged, refused);
  EXPECT_GE(judged, 12) << "too few generated cases reach the kernel: the test-scale shapes miss its limits";
}

// (2): bitwise determinism across two random sim schedules, where the op's contract requires it.
TEST_P(KernelDeterminism, BitwiseEqualUnderTwoSchedules) {
  const std::string opname = GetParam();
  prepare_registry();
  const OpDescriptor& d = Registry::instance().get(opname);
  test::check_short(3, [&] {
    const CaseSpec c = *rcgen::case_specs(opname, ShapeScale::test);
    RC_LOG() << "repro: " << repro_command(c, sim_options(1)) << "\n";
    PreparedCase p = prepare_case(c);
    RC_PRE(p.ok);
    std::vector<Outputs> runs;
    for (std::uint64_t sched : {1, 2}) {
      try {
        runs.push_back(run_under_test(d, p.c, p.expected, sim_options(sched)).outputs);
      } catch (const kernels::CannotImplement&) {
        RC_DISCARD("outside the kernel's declared limits");
      }
    }
    for (auto& [name, t] : runs[0]) {
      RC_LOG() << "output " << name << "\n";
      RC_ASSERT(t.to_codes() == runs[1].at(name).to_codes());
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Registered, KernelProps, ::testing::ValuesIn(kernel_ops()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
INSTANTIATE_TEST_SUITE_P(Registered, KernelDeterminism, ::testing::ValuesIn(deterministic_kernel_ops()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KernelProps);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KernelDeterminism);

}  // namespace
}  // namespace dsv4::fuzz
