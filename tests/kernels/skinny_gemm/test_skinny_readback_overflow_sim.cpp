// The planted bug of known-bugs #1 on the simulator (issue 6): the skinny GEMM's readback staged in one pass
// instead of batches. At gfx950, N >= 65, K = 5248 (pre-fix CHUNKK = 2, k_rnd = 21, 21 · 8 KiB staged > 160 KiB)
// the simulator must report the LDS overflow at its exact place (array "readback_stage", bytes 163,840..172,031:
// N-tile 1 of shards 19 and 20), and the per-row comparison must catch its numeric effect (dropped writes, reads of
// 0) confined to rows >= 64. The fixed kernel at the same shape, forced to the same CHUNKK, is clean.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"
#include "tests/support/seed.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;
namespace sim = dsv4::port::sim;
using namespace dsv4::test::skinny;

namespace {

struct SimRun {
  sk::SkinnyPlan plan;
  RowCheck rows;
  sim::Report report;
};

SimRun run_on_gfx950(std::int64_t n, std::int64_t m, std::int64_t k, sk::SkinnyOptions opt) {
  sim::Options o;
  o.arch = port::Arch::gfx950;
  sim::set_options(o);
  (void)sim::take_report();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  s.k = k;
  s.bias = sk::BiasShape::m;
  SimRun r;
  r.plan = sk::make_plan(s, port::kGfx950, opt);
  EXPECT_TRUE(r.plan.ok) << r.plan.reason;
  const HostCase c = make_case(s, rng);
  DeviceCase d(c);
  port::DeviceBuffer ws(r.plan.workspace_bytes);
  port::Stream st;
  sk::initialize_workspace(r.plan, ws, st);
  sk::launch_skinny_gemm(r.plan, d.io(), ws.data(), ws.bytes(), st);
  st.synchronize();
  r.report = sim::take_report();
  r.rows = check_rows(c, reference(c), d.result());
  sim::reset_options();
  return r;
}

}  // namespace

TEST(SkinnySim, OnePassReadbackOverflowIsReportedAtItsExactLocation) {
  if (!sim::sim_active()) GTEST_SKIP() << "needs the sim backend (DSV4_BACKEND=sim)";
  const SimRun r = run_on_gfx950(65, 16, 5248, {sk::SkinnyVariant::readback_one_pass, 0});
  ASSERT_EQ(r.plan.k_rnd, 21) << r.plan.describe();
  const auto oor = r.report.of_kind(sim::ViolationKind::lds_out_of_range);
  ASSERT_FALSE(oor.empty()) << "no LDS violation reported; report: " << r.report.to_string();
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& v : oor) {
    EXPECT_EQ(v.array, "readback_stage") << v.to_string();
    EXPECT_NE(v.kernel.find("skinny_gemm"), std::string::npos) << v.to_string();
    EXPECT_EQ(v.array_bytes, 163840u) << v.to_string();
    lo = std::min(lo, v.offset);
    hi = std::max(hi, v.offset + static_cast<std::int64_t>(v.size));
  }
  // Staging index ((nt · 21 + ks) · 64 + n) · 16 + m floats: nt = 1, ks = 19 starts at 40 · 4096 B = 163,840.
  EXPECT_EQ(lo, 163840);
  if (r.report.total == r.report.violations.size()) {
    EXPECT_EQ(hi, 172032);
  }
}

TEST(SkinnySim, OnePassReadbackOverflowIsCaughtPerRow) {
  if (!sim::sim_active()) GTEST_SKIP() << "needs the sim backend (DSV4_BACKEND=sim)";
  const SimRun r = run_on_gfx950(65, 16, 5248, {sk::SkinnyVariant::readback_one_pass, 0});
  ASSERT_FALSE(r.rows.ok()) << "the oracle missed the dropped shards";
  // Only the second N-tile (rows 64..127) loses shards; with N = 65 that is row 64 alone.
  EXPECT_EQ(r.rows.failing_rows, std::vector<std::int64_t>{64}) << r.rows.first;
}

TEST(SkinnySim, BatchedReadbackAtTheBugShapeIsCleanAndCorrect) {
  if (!sim::sim_active()) GTEST_SKIP() << "needs the sim backend (DSV4_BACKEND=sim)";
  const SimRun r = run_on_gfx950(65, 16, 5248, {sk::SkinnyVariant::fixed, 2});
  EXPECT_EQ(r.plan.k_rnd, 21);
  EXPECT_EQ(r.plan.readback_batches, 2);
  EXPECT_TRUE(r.report.empty()) << r.report.to_string();
  EXPECT_TRUE(r.rows.ok()) << r.rows.first;
}
