// The simulator on issue 6's large case: the split-K skinny GEMM (kernels/skinny_gemm) at N=65, K=5248, M=256 with
// all LDS checks on is numerically right (per-row comparison against the float64 reference), leaves an empty sim
// report and stays under 1 GiB. Its speed (the 2-CPU-second target) is measured by bench/kernels/bench_sim_speed.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdio>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/sim/sim_fixture.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;
namespace sim = dsv4::port::sim;

class SimSkinnyLarge : public SimTest {};

TEST_F(SimSkinnyLarge, N65K5248M256MatchesTheReferenceUnderOneGiB) {
  const sk::SkinnyShape s = skinny::sim_large_case_shape();
  const sk::SkinnyPlan plan = sk::make_plan(s, port::kGfx950, {});
  ASSERT_TRUE(plan.ok) << plan.reason;
  auto rng = rng_for_current_test();
  const skinny::HostCase c = skinny::make_case(s, rng);
  port::Stream st;
  skinny::ReadyLaunch run(plan, c, st);
  const sim::Stats before = sim::stats();
  run.launch(st);
  const sim::Stats after = sim::stats();
  const sim::Report r = sim::take_report();
  EXPECT_TRUE(r.empty()) << r.to_string();
  const skinny::RowCheck rows = skinny::check_rows(c, skinny::reference(c), run.d.result());
  EXPECT_EQ(rows.failures, 0);
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("[sim] skinny N=65 K=5248 M=256: %llu blocks, %llu threads, %llu barriers, %llu fiber switches, "
              "peak RSS %.1f MiB\n",
              static_cast<unsigned long long>(after.blocks - before.blocks),
              static_cast<unsigned long long>(after.threads - before.threads),
              static_cast<unsigned long long>(after.barriers - before.barriers),
              static_cast<unsigned long long>(after.fiber_switches - before.fiber_switches),
              double(ru.ru_maxrss) / 1024.0);
  EXPECT_LT(ru.ru_maxrss, 1024L * 1024L);
}

}  // namespace
}  // namespace dsv4::test
