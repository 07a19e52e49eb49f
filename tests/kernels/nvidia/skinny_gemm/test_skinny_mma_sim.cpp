// The skinny GEMM's tensor-core path (sk::sm90_layout(plan).mma, chosen for sm_90) on the simulator with the sm_90 profile (wave
// 32, kernels/nvidia/port/mma.hpp emulated): per-row check against the float64 reference over N classes (every
// mma_n_blocks value, N not a multiple of 8), K tails, M not a multiple of 16, both dtypes, every bias shape,
// padded rows of a, both CHUNKK values; bit-determinism under random schedules; counters back at zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/nvidia/skinny_gemm/sm90_sweep_checks.hpp"
#include "tests/kernels/skinny_gemm/skinny_device_checks.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"
#include "tests/support/seed.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;
using namespace dsv4::test::skinny;

namespace {

class SkinnyMmaSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (port::backend() != port::Backend::sim) GTEST_SKIP() << "sim-only test (sets the sm_90 sim profile)";
    port::sim::reset_options();
    auto o = port::sim::options();
    o.arch = port::Arch::sm_90;
    port::sim::set_options(o);
  }
  void TearDown() override {
    if (port::backend() == port::Backend::sim) port::sim::reset_options();
  }
};

sk::SkinnyShape shape(std::int64_t n, std::int64_t m, std::int64_t k, sk::ElemType t, sk::BiasShape b,
                      std::int64_t pad) {
  return device_shape(n, m, k, t, b, pad);
}

// The random schedule with preemption at global accesses, seeded from the test seed and `name`.
void use_random_schedule(const char* name) {
  auto o = port::sim::options();
  o.schedule = port::sim::Schedule::random;
  o.preempt_global = true;
  o.seed = dsv4::test::test_seed(name);
  port::sim::set_options(o);
}

std::string run_and_check(const sk::SkinnyShape& s, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                          std::mt19937_64& rng, sk::Sm90Options opt = {}) {
  const sk::SkinnyPlan plan = sk::make_plan(s, port::device_profile(), opt);
  if (!plan.ok) return "refused: " + plan.reason;
  if (!sk::sm90_layout(plan).mma) return "not the MMA path: " + plan.describe();
  return run_plan_and_check(plan, pool, st, rng);
}

}  // namespace

TEST_F(SkinnyMmaSim, SweepMatchesReferencePerRow) {
  ASSERT_EQ(port::device_profile().arch, port::Arch::sm_90);
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 0);
  port::Stream st;
  const sk::BiasShape biases[] = {sk::BiasShape::none, sk::BiasShape::m, sk::BiasShape::nm, sk::BiasShape::one_m};
  int idx = 0, cases = 0;
  std::vector<std::string> failures;
  for (std::int64_t n : {1, 3, 8, 9, 16, 17, 33, 65, 128})
    for (std::int64_t k : {512, 1032, 2056}) {
      const std::int64_t m = (idx % 2 == 0) ? 48 : 40;
      const auto t = (idx / 2) % 2 == 0 ? sk::ElemType::bf16 : sk::ElemType::f16;
      const std::int64_t pad = (idx % 3 == 0) ? 24 : 0;
      const std::string f = run_and_check(shape(n, m, k, t, biases[idx % 4], pad), pool, st, rng);
      ++idx;
      ++cases;
      if (!f.empty()) failures.push_back(f);
    }
  for (int chunkk : {1, 2})
    for (std::int64_t n : {20, 65}) {
      const std::string f = run_and_check(shape(n, 32, 5248, sk::ElemType::bf16, sk::BiasShape::nm, 0), pool, st,
                                          rng, {sk::SkinnyVariant::fixed, chunkk});
      ++cases;
      if (!f.empty()) failures.push_back(f);
    }
  for (const auto& f : failures) ADD_FAILURE() << f;
  std::cout << "[skinny mma sim] sweep: " << cases << " cases, " << failures.size() << " failing\n";
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

// Every tensor-core layout the plan may choose (16-row tiles of b per warp x warps along M, for each N class), each
// with a split (one chunk per shard, k_rnd = 3) and without (the one-shard direct epilogue): small shapes reach
// layouts the cost model only picks for large ones.
TEST_F(SkinnyMmaSim, EveryForcedLayoutMatchesReferencePerRow) {
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 0);
  port::Stream st;
  int cases = 0, idx = 0;
  std::vector<std::string> failures;
  for (std::int64_t n : {9, 20, 40, 100})
    for (int mt : {1, 2, 4})
      for (int wm : {4, 2, 1})
        for (int cps : {1, 3}) {
          const auto s = shape(n, idx % 2 ? 40 : 48, 1032, idx % 3 ? sk::ElemType::bf16 : sk::ElemType::f16,
                               idx % 2 ? sk::BiasShape::nm : sk::BiasShape::m, 0);
          const sk::Sm90Options opt{{sk::SkinnyVariant::fixed, 1}, wm, cps, mt, sk::TensorCoreKernel::mma_m16n8k16};
          const sk::SkinnyPlan plan = sk::make_plan(s, port::device_profile(), opt);
          if (!plan.ok) continue;  // not a layout of this N class, or over the LDS budget
          ++idx;
          EXPECT_EQ(sk::sm90_layout(plan).mma_m_tiles, mt);
          EXPECT_EQ(sk::sm90_layout(plan).mma_warps_m, wm);
          EXPECT_EQ(plan.k_rnd, cps == 1 ? 3 : 1) << plan.describe();
          const std::string f = run_and_check(s, pool, st, rng, opt);
          ++cases;
          if (!f.empty()) failures.push_back(f);
        }
  for (const auto& f : failures) ADD_FAILURE() << f;
  std::cout << "[skinny mma sim] forced layouts: " << cases << " cases, " << failures.size() << " failing\n";
  EXPECT_GE(cases, 24);
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

// The warpgroup kernel (sk::sm90_layout(plan).wgmma) in every layout (sweep_wgmma_layouts); the emulated wgmma reads LDS at the
// hardware's swizzled addresses.
TEST_F(SkinnyMmaSim, EveryWgmmaLayoutMatchesReferencePerRow) {
  auto rng = dsv4::test::rng_for_current_test();
  check_wgmma_sweep(WgmmaSweep::layouts, "[skinny mma sim]", rng);
}

// Output-row slices (sweep_wgmma_slices): each slice's workgroup stores only its rows, with its rows of bias. Under
// a random schedule with preemption at global accesses (seeded from the test seed): a workgroup storing rows of the
// next slice (zeros past its own) is caught when its stores land after that slice's, which serial order hides.
TEST_F(SkinnyMmaSim, WgmmaOutputRowSlicesMatchReferencePerRow) {
  auto rng = dsv4::test::rng_for_current_test();
  use_random_schedule("skinny_wgmma_slices");
  check_wgmma_sweep(WgmmaSweep::slices, "[skinny mma sim]", rng);
}

// Cluster-reduced split plans (sweep_wgmma_clusters) against the workspace path, bit for bit, under a random schedule
// with preemption at global accesses: a rank reading a partial before its owner wrote it, or after its owner exited,
// fails the launch (the sim's cluster checks), and an exchange in the wrong shard order changes bits.
TEST_F(SkinnyMmaSim, ClusterReducedShardsMatchTheWorkspacePathBitForBit) {
  auto rng = dsv4::test::rng_for_current_test();
  use_random_schedule("skinny_wgmma_clusters");
  check_wgmma_sweep(WgmmaSweep::clusters, "[skinny mma sim]", rng);
  const auto rep = port::sim::take_report();
  EXPECT_TRUE(rep.empty()) << rep.to_string();
}

// The producer-warp kernel (sweep_producer_warp) under a random schedule with preemption at global accesses: the
// sim's barriers have their real semantics, so a consumer reading a slot before its full barrier, a refill before
// both readers released the slot, or an epilogue reusing the ring before the other warpgroup's MMAs are done is an
// LDS race report, and a wrong parity or byte count a deadlock report.
TEST_F(SkinnyMmaSim, ProducerWarpKernelMatchesReferencePerRow) {
  auto rng = dsv4::test::rng_for_current_test();
  use_random_schedule("skinny_producer_warp");
  check_producer_warp_sweep("[skinny mma sim]", rng);
  const auto rep = port::sim::take_report();
  EXPECT_TRUE(rep.empty()) << rep.to_string();
}

// Random shapes on the warpgroup path with a random slicing (or the model's), a random shard length and bias:
// every admitted plan must match the float64 reference per row. The seed line above a failure reproduces it.
TEST_F(SkinnyMmaSim, RandomShapesWithRandomSlicesMatchReferencePerRow) {
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(2, std::size_t{32} << 20, 0);
  port::Stream st;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int sliced = 0;
  for (int i = 0; i < 16; ++i) {
    sk::SkinnyShape s;
    s.n = pick(1, 128);
    s.m = pick(1, 260);
    s.k = 8 * pick(1, 200);
    s.lda = pick(0, 3) == 0 ? s.k + 8 * pick(1, 4) : 0;
    s.dtype = pick(0, 1) ? sk::ElemType::bf16 : sk::ElemType::f16;
    s.bias = static_cast<sk::BiasShape>(pick(0, 3));
    sk::Sm90Options o;
    o.force_kernel = sk::TensorCoreKernel::wgmma;
    const int most = sk::wgmma_unsliced_rows(s.n);
    o.force_slice_rows = pick(0, 2) == 0 ? 0 : std::max(8, most >> pick(0, 3));
    o.force_chunks_per_shard = pick(0, 2);  // 0: the model's
    const sk::SkinnyPlan plan = sk::make_plan(s, port::device_profile(), o);
    ASSERT_TRUE(plan.ok) << plan.describe();
    ASSERT_TRUE(sk::sm90_layout(plan).wgmma) << plan.describe();
    if (plan.n_slices > 1) ++sliced;
    const std::string f = run_plan_and_check(plan, pool, st, rng, pick(0, 3) == 0, 0);
    EXPECT_TRUE(f.empty()) << "case " << i << ": " << f;
  }
  std::cout << "[skinny mma sim] random wgmma shapes: 16 cases, " << sliced << " with more than one slice\n";
  EXPECT_GE(sliced, 4);  // the draw reaches the sliced plans (tests the test)
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

TEST_F(SkinnyMmaSim, BitDeterministicUnderRandomSchedules) {
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(1, std::size_t{16} << 20, 0);
  port::Stream st;
  const auto s = shape(40, 48, 5248, sk::ElemType::bf16, sk::BiasShape::m, 0);
  // The split-K kernels' plan (the producer-warp kernel's rule would take this shape), and the producer-warp kernel
  // split into a cluster of 5 shards (41 steps of 128 K: the ranks sum each other's LDS in rank order).
  sk::Sm90Options split_k, pw;
  split_k.allow_producer_warp = false;
  pw.force_kernel = sk::TensorCoreKernel::producer_warp;
  pw.force_chunks_per_shard = 9;
  for (const sk::Sm90Options& opt : {split_k, pw}) {
    const sk::SkinnyPlan plan = sk::make_plan(s, port::device_profile(), opt);
    ASSERT_TRUE(plan.ok && sk::sm90_layout(plan).mma) << plan.describe();
    ASSERT_GT(plan.k_rnd, 1) << plan.describe();
    ASSERT_EQ(sk::sm90_layout(plan).producer_warp, opt.force_kernel == sk::TensorCoreKernel::producer_warp) << plan.describe();
    const std::string f = check_bit_determinism(plan, 3, pool, st, rng, [](int r) {
      auto o = port::sim::options();
      o.schedule = port::sim::Schedule::random;
      o.preempt_global = true;
      o.seed = dsv4::test::test_seed("skinny_mma_det") + static_cast<std::uint64_t>(r);
      port::sim::set_options(o);
    });
    EXPECT_TRUE(f.empty()) << f;
  }
  const auto rep = port::sim::take_report();
  EXPECT_TRUE(rep.empty()) << rep.to_string();
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}
