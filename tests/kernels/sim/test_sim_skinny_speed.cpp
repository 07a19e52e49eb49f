// Simulator speed target of issue 6: the split-K skinny GEMM (kernels/skinny_gemm) at N=65, K=5248, M=256 runs in
// under 2 s of one core's CPU time with all LDS checks on, stays under 1 GiB, and is numerically right (per-row
// comparison against the float64 reference). Prints the CPU time and cases per second for the report.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <time.h>

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

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

class SimSkinnySpeed : public SimTest {};

TEST_F(SimSkinnySpeed, N65K5248M256UnderTwoCpuSeconds) {
  sk::SkinnyShape s;
  s.n = 65;
  s.m = 256;
  s.k = 5248;
  s.bias = sk::BiasShape::m;
  const sk::SkinnyPlan plan = sk::make_plan(s, port::kGfx950, {});
  ASSERT_TRUE(plan.ok) << plan.reason;
  auto rng = rng_for_current_test();
  const skinny::HostCase c = skinny::make_case(s, rng);
  skinny::DeviceCase d(c);
  port::DeviceBuffer ws(plan.workspace_bytes);
  port::Stream st;
  sk::initialize_workspace(plan, ws, st);
  st.synchronize();
  const sim::Stats before = sim::stats();
  const double t0 = thread_cpu_seconds();
  sk::launch_skinny_gemm(plan, d.io(), ws.data(), ws.bytes(), st);
  st.synchronize();
  const double cpu = thread_cpu_seconds() - t0;
  const sim::Stats after = sim::stats();
  const sim::Report r = sim::take_report();
  EXPECT_TRUE(r.empty()) << r.to_string();
  const skinny::RowCheck rows = skinny::check_rows(c, skinny::reference(c), d.result());
  EXPECT_EQ(rows.failures, 0);
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("[sim perf] skinny N=65 K=5248 M=256: %.3f s CPU (%.2f cases/s), %llu blocks, %llu threads, "
              "%llu barriers, %llu fiber switches, peak RSS %.1f MiB\n",
              cpu, 1.0 / cpu, static_cast<unsigned long long>(after.blocks - before.blocks),
              static_cast<unsigned long long>(after.threads - before.threads),
              static_cast<unsigned long long>(after.barriers - before.barriers),
              static_cast<unsigned long long>(after.fiber_switches - before.fiber_switches),
              double(ru.ru_maxrss) / 1024.0);
  EXPECT_LT(cpu, 2.0);
  EXPECT_LT(ru.ru_maxrss, 1024L * 1024L);
}

}  // namespace
}  // namespace dsv4::test
