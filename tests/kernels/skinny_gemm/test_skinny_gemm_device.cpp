// Device tests of the skinny GEMM (label gpu): kernel vs float64 reference per row over the N/K/M/dtype/bias/
// padding sweep of issue 5, bit-determinism, the counter-zero invariant, two streams through the pool, a graph
// captured on stream A replayed on stream B while A runs, and refusal before launch. On the sim backend the same
// tests run on a reduced sweep (the simulator is a checker, not fast). On a device whose profile has an arch path
// (an H200: kernels/nvidia) the arch path's own options are tests/kernels/nvidia/skinny_gemm/test_sm90_device.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "reference/registry/op_descriptor.hpp"
#include "kernels/skinny_gemm/skinny_arch_layout.hpp"
#include "tests/kernels/skinny_gemm/skinny_device_checks.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"
#include "tests/support/seed.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;
using namespace dsv4::test::skinny;

namespace {

#define SKINNY_REQUIRE_DEVICE() \
  if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason()
// The checks whose options differ on a profile with an arch path run there from that path's tests.
#define SKINNY_REQUIRE_PORTABLE_DEVICE()                                        \
  SKINNY_REQUIRE_DEVICE();                                                      \
  if (sk::find_arch_path(port::device_profile().arch))                          \
  GTEST_SKIP() << "an arch path's device: its own tests (tests/kernels/nvidia/skinny_gemm/test_sm90_device)"

sk::SkinnyShape shape(std::int64_t n, std::int64_t m, std::int64_t k, sk::ElemType t = sk::ElemType::bf16,
                      sk::BiasShape b = sk::BiasShape::none, std::int64_t pad = 0) {
  return device_shape(n, m, k, t, b, pad);
}

// Runs one shape through the pool, synchronises, and checks per row. Returns "" when correct.
std::string run_and_check(const sk::SkinnyShape& s, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                          std::mt19937_64& rng, sk::SkinnyOptions opt = {}) {
  const sk::SkinnyPlan plan = sk::make_plan(s, port::device_profile(), opt);
  if (!plan.ok) return "refused: " + plan.reason;
  return run_plan_and_check(plan, pool, st, rng);
}

}  // namespace

TEST(SkinnyDevice, SweepMatchesReferencePerRow) {
  SKINNY_REQUIRE_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 0);
  port::Stream st;
  int cases = 0;
  // The plan's own choice (on an H200 each tensor-core kernel forced too: test_sm90_device).
  std::vector<std::string> failures = issue5_sweep(
      {[](const sk::SkinnyShape& sh) { return sk::make_plan(sh, port::device_profile()); }}, pool, st, rng, &cases);
  // Both CHUNKK values at the known-bug shapes (N >= 65, K = 5248 and past the CHUNKK=1 onset).
  for (int chunkk : {1, 2})
    for (std::int64_t k : on_sim() ? std::vector<std::int64_t>{5248} : std::vector<std::int64_t>{5248, 10368, 16384})
      for (std::int64_t n : {65, 128}) {
        const std::string f =
            run_and_check(shape(n, 16, k, sk::ElemType::bf16, sk::BiasShape::nm), pool, st, rng, {sk::SkinnyVariant::fixed, chunkk});
        ++cases;
        if (!f.empty()) failures.push_back(f);
      }
  for (const auto& f : failures) ADD_FAILURE() << f;
  std::cout << "[skinny] sweep: " << cases << " cases, " << failures.size() << " failing\n";
  // Every counter is back at zero after the sweep.
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

// Out or bias misaligned (check_misaligned_out_and_bias): split plans, whose readback epilogue stores the output.
TEST(SkinnyDevice, MisalignedOutAndBiasMatchReference) {
  SKINNY_REQUIRE_PORTABLE_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(1, std::size_t{16} << 20, 0);
  port::Stream st;
  const EpilogueCounts n = check_misaligned_out_and_bias(
      {[](const sk::SkinnyShape& s) { return sk::make_plan(s, port::device_profile()); }}, pool, st, rng);
  EXPECT_GT(n.split, 0) << "no split plan: the readback epilogue was not covered";
}

TEST(SkinnyDevice, BitDeterministicOverRepeatedRuns) {
  SKINNY_REQUIRE_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(1, std::size_t{16} << 20, 0);
  port::Stream st;
  const auto s = shape(65, on_sim() ? 32 : 272, 5248, sk::ElemType::bf16, sk::BiasShape::m);
  const sk::SkinnyPlan plan = sk::make_plan(s, port::device_profile(), sk::SkinnyOptions{sk::SkinnyVariant::fixed, 2});
  ASSERT_TRUE(plan.ok) << plan.reason;
  ASSERT_GT(plan.k_rnd, 1) << plan.describe();
  const std::string f = check_bit_determinism(plan, on_sim() ? 4 : 20, pool, st, rng, [](int r) {
    if (!on_sim()) return;  // sim: different interleavings of the workgroups, a different last arriver each time
    auto o = port::sim::options();
    o.schedule = port::sim::Schedule::random;
    o.seed = dsv4::test::test_seed("skinny_det") + static_cast<std::uint64_t>(r);
    port::sim::set_options(o);
  });
  EXPECT_TRUE(f.empty()) << f;
  if (on_sim()) port::sim::reset_options();
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

TEST(SkinnyDevice, TwoStreamsDifferentGemmsThroughPool) {
  SKINNY_REQUIRE_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 0);
  port::Stream s1, s2;
  const auto sh1 = shape(33, on_sim() ? 32 : 256, on_sim() ? 1024 : 4096, sk::ElemType::bf16, sk::BiasShape::m);
  const auto sh2 = shape(100, on_sim() ? 48 : 304, on_sim() ? 2048 : 7168, sk::ElemType::f16, sk::BiasShape::none);
  const auto p1 = sk::make_plan(sh1, port::device_profile()), p2 = sk::make_plan(sh2, port::device_profile());
  ASSERT_TRUE(p1.ok && p2.ok);
  const HostCase c1 = make_case(sh1, rng), c2 = make_case(sh2, rng);
  DeviceCase d1(c1), d2(c2);
  const int iters = on_sim() ? 3 : 100;
  std::vector<port::DeviceBuffer> o1, o2;
  for (int i = 0; i < iters; ++i) {
    o1.emplace_back(d1.out.bytes());
    o2.emplace_back(d2.out.bytes());
  }
  port::device_synchronize();
  if (on_sim()) {
    auto o = port::sim::options();
    o.schedule = port::sim::Schedule::random;
    o.seed = dsv4::test::test_seed("skinny_streams");
    port::sim::set_options(o);
  }
  for (int i = 0; i < iters; ++i) {  // interleaved, no synchronisation between the streams
    sk::SkinnyBuffers io1 = d1.io(), io2 = d2.io();
    io1.out = o1[i].data();
    io2.out = o2[i].data();
    sk::run_skinny_gemm(p1, io1, pool, s1);
    sk::run_skinny_gemm(p2, io2, pool, s2);
  }
  s1.synchronize();
  s2.synchronize();
  if (on_sim()) port::sim::reset_options();
  EXPECT_EQ(pool.stream_slots_used(), 2);
  const RefResult r1 = reference(c1), r2 = reference(c2);
  int bad = 0;
  std::vector<std::uint16_t> ref1, ref2;
  for (int i = 0; i < iters; ++i) {
    const auto g1 = o1[i].to_host<std::uint16_t>(), g2 = o2[i].to_host<std::uint16_t>();
    if (i == 0) {
      ASSERT_TRUE(check_rows(c1, r1, g1).ok()) << p1.describe();
      ASSERT_TRUE(check_rows(c2, r2, g2).ok()) << p2.describe();
      ref1 = g1;
      ref2 = g2;
    }
    bad += (g1 != ref1) + (g2 != ref2);
  }
  EXPECT_EQ(bad, 0) << "corrupted iterations out of " << 2 * iters;
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

TEST(SkinnyDevice, GraphCapturedOnAReplayedOnBWhileABusy) {
  SKINNY_REQUIRE_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 2);
  port::Stream a, b;
  const auto sh = shape(48, on_sim() ? 32 : 256, on_sim() ? 1024 : 5248, sk::ElemType::bf16, sk::BiasShape::nm);
  const auto sh_live = shape(48, on_sim() ? 32 : 256, on_sim() ? 1024 : 5248, sk::ElemType::bf16, sk::BiasShape::none);
  const auto plan = sk::make_plan(sh, port::device_profile());
  const auto plan_live = sk::make_plan(sh_live, port::device_profile());
  ASSERT_TRUE(plan.ok && plan_live.ok);
  const HostCase cg = make_case(sh, rng), cl = make_case(sh_live, rng);
  DeviceCase dg(cg), dl(cl);
  a.begin_capture();
  sk::run_skinny_gemm(plan, dg.io(), pool, a);
  port::Graph g = a.end_capture();
  port::GraphExec ge = g.instantiate();
  const int iters = on_sim() ? 2 : 50;
  for (int i = 0; i < iters; ++i) {  // same M-tiles, same shard count: a shared workspace would race
    sk::run_skinny_gemm(plan_live, dl.io(), pool, a);
    ge.launch(b);
  }
  a.synchronize();
  b.synchronize();
  EXPECT_TRUE(check_rows(cg, reference(cg), dg.result()).ok()) << "graph replay on B: " << plan.describe();
  EXPECT_TRUE(check_rows(cl, reference(cl), dl.result()).ok()) << "live on A: " << plan_live.describe();
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

TEST(SkinnyDevice, RefusedBeforeLaunchWithTheLimit) {
  SKINNY_REQUIRE_PORTABLE_DEVICE();
  check_refused_before_launch([](const sk::SkinnyShape& s) { return sk::make_plan(s, port::device_profile()); });
}
