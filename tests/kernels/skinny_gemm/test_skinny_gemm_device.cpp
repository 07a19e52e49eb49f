// Device tests of the skinny GEMM (label gpu): kernel vs float64 reference per row over the N/K/M/dtype/bias/
// padding sweep of issue 5, bit-determinism, the counter-zero invariant, two streams through the pool, a graph
// captured on stream A replayed on stream B while A runs, and refusal before launch. On the sim backend the same
// tests run on a reduced sweep (the simulator is a checker, not fast).
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "reference/registry/op_descriptor.hpp"
#include "tests/kernels/skinny_gemm/skinny_sweep_checks.hpp"
#include "tests/kernels/skinny_gemm/skinny_test_util.hpp"
#include "tests/support/seed.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;
using namespace dsv4::test::skinny;

namespace {

bool on_sim() { return port::backend() == port::Backend::sim; }

#define SKINNY_REQUIRE_DEVICE() \
  if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason()

sk::SkinnyShape shape(std::int64_t n, std::int64_t m, std::int64_t k, sk::ElemType t = sk::ElemType::bf16,
                      sk::BiasShape b = sk::BiasShape::none, std::int64_t pad = 0) {
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  s.k = k;
  s.lda = pad ? k + pad : 0;
  s.dtype = t;
  s.bias = b;
  return s;
}

// Runs one shape through the pool, synchronises, and checks per row. Returns "" when correct.
std::string run_and_check(const sk::SkinnyShape& s, sk::SkinnyWorkspacePool& pool, port::Stream& st,
                          std::mt19937_64& rng, sk::Sm90Options opt = {}) {
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
  std::vector<std::int64_t> ns, ks;
  if (on_sim()) {
    ns = {1, 4, 16, 17, 33, 65, 128};
    ks = {512, 1032};
  } else {
    for (int n = 1; n <= 17; ++n) ns.push_back(n);
    for (int n : {31, 32, 33, 63, 64, 65, 127, 128}) ns.push_back(n);
    ks = {512, 2056, 5248, 10368, 16384};
  }
  const std::vector<int> kernels =
      port::device_profile().arch == port::Arch::sm_90 && !on_sim() ? std::vector<int>{0, 1, 2} : std::vector<int>{0};
  const sk::BiasShape biases[] = {sk::BiasShape::none, sk::BiasShape::m, sk::BiasShape::nm, sk::BiasShape::one_m};
  int idx = 0, cases = 0;
  std::vector<std::string> failures;
  for (std::int64_t n : ns)
    for (std::int64_t k : ks) {
      const std::int64_t m = (idx % 2 == 0) ? (on_sim() ? 48 : 128) : (on_sim() ? 40 : 200);  // multiple of 16, or not
      const auto t = (idx / 2) % 2 == 0 ? sk::ElemType::bf16 : sk::ElemType::f16;
      const auto b = biases[idx % 4];
      const std::int64_t pad = (idx % 3 == 0) ? 24 : 0;
      ++idx;
      for (int kernel : kernels) {  // on the H200: the model's choice, then each tensor-core kernel forced
        sk::Sm90Options opt;
        opt.force_kernel = static_cast<sk::TensorCoreKernel>(kernel);
        const std::string f = run_and_check(shape(n, m, k, t, b, pad), pool, st, rng, opt);
        ++cases;
        if (!f.empty()) failures.push_back(f);
      }
    }
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

// The warpgroup-kernel sweeps (skinny_sweep_checks.hpp) on an sm_90 device; the sim runs the same sweeps in
// test_skinny_mma_sim (with the sm_90 profile), so here they are skipped on sim and on other archs.
#define SKINNY_REQUIRE_SM90_DEVICE()                                                       \
  SKINNY_REQUIRE_DEVICE();                                                                 \
  if (on_sim() || port::device_profile().arch != port::Arch::sm_90)                        \
  GTEST_SKIP() << "the warpgroup kernel and thread-block clusters run on sm_90 devices (sim: test_skinny_mma_sim)"

// Every layout (sweep_wgmma_layouts).
TEST(SkinnyDevice, EveryWgmmaLayoutMatchesReferencePerRow) {
  SKINNY_REQUIRE_SM90_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  check_wgmma_sweep(WgmmaSweep::layouts, "[skinny]", rng);
}

// Output-row slices (sweep_wgmma_slices).
TEST(SkinnyDevice, WgmmaOutputRowSlicesMatchReferencePerRow) {
  SKINNY_REQUIRE_SM90_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  check_wgmma_sweep(WgmmaSweep::slices, "[skinny]", rng);
}

// Split plans with the shards of a tile reduced through a thread-block cluster (distributed shared memory) against the
// same layouts reduced through the workspace: reference per row, and the two bit for bit (sweep_wgmma_clusters).
TEST(SkinnyDevice, ClusterReducedShardsMatchTheWorkspacePathBitForBit) {
  SKINNY_REQUIRE_SM90_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  check_wgmma_sweep(WgmmaSweep::clusters, "[skinny device]", rng);
}

// The producer-warp kernel (sweep_producer_warp; sim: test_skinny_mma_sim).
TEST(SkinnyDevice, ProducerWarpKernelMatchesReferencePerRow) {
  SKINNY_REQUIRE_SM90_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  check_producer_warp_sweep("[skinny device]", rng);
}

// Out or bias one element past a 16-byte boundary, M a multiple of 8: the vector epilogue must not be used (a GPU
// faults on a misaligned 16-byte store; sim fails the launch the same way). Split plans on every profile, and the
// one-shard epilogue of the tensor-core path (sm_90; the FMA path always goes through the readback).
TEST(SkinnyDevice, MisalignedOutAndBiasMatchReference) {
  SKINNY_REQUIRE_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(1, std::size_t{16} << 20, 0);
  port::Stream st;
  int direct = 0, split = 0;
  const bool tensor_cores = port::device_profile().arch == port::Arch::sm_90;
  for (int one_shard : {0, 1}) {
    if (one_shard && !tensor_cores) continue;
    sk::Sm90Options opt;
    opt.force_chunks_per_shard = one_shard ? 64 : 0;
    opt.allow_producer_warp = false;  // the split-K kernels' epilogues (the producer-warp kernel's: sweep_producer_warp)
    for (const auto& s : {shape(20, 128, 512, sk::ElemType::bf16, sk::BiasShape::nm),
                          shape(100, 64, 8192, sk::ElemType::f16, sk::BiasShape::m),
                          shape(3, 256, 16384, sk::ElemType::bf16, sk::BiasShape::one_m)}) {
      const sk::SkinnyPlan plan = sk::make_plan(s, port::device_profile(), opt);
      ASSERT_TRUE(plan.ok) << plan.reason;
      ++(plan.k_rnd == 1 ? direct : split);
      for (int bias_misaligned : {0, 1}) {  // out misaligned with an aligned bias, then the other way round
        const std::string f = run_plan_and_check(plan, pool, st, rng, 1 - bias_misaligned, bias_misaligned);
        EXPECT_TRUE(f.empty()) << (bias_misaligned ? "bias" : "out") << " misaligned: " << f;
      }
    }
  }
  EXPECT_GT(split, 0) << "no split plan: the readback epilogue was not covered";
  if (tensor_cores) {
    EXPECT_GT(direct, 0) << "no one-shard plan: the direct epilogue was not covered";
  }
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
  SKINNY_REQUIRE_DEVICE();
  sk::SkinnyWorkspacePool pool(1, std::size_t{1} << 20, 0);
  port::Stream st;
  auto last_id = [] {
    const auto log = port::launch_log();
    return log.empty() ? std::uint64_t{0} : log.back().id;
  };
  const auto before = last_id();
  const auto bad = sk::make_plan(shape(129, 64, 512), port::device_profile());
  try {
    sk::run_skinny_gemm(bad, {}, pool, st);
    FAIL() << "N=129 was not refused";
  } catch (const dsv4::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("N=129"), std::string::npos) << e.what();
  }
  // A caller-owned workspace one byte short of the plan is refused too (a plan that reduces its shards through the
  // workspace: a cluster-reduced one needs none).
  sk::Sm90Options through_workspace;
  through_workspace.force_cluster_reduce = 1;
  const auto ok = sk::make_plan(shape(64, 64, 2048), port::device_profile(), through_workspace);
  ASSERT_TRUE(ok.ok && ok.workspace_bytes > 0) << ok.describe();
  port::DeviceBuffer ws(ok.workspace_bytes - 1), x(64 * 2048 * 2), y(64 * 2048 * 2), out(64 * 64 * 2);
  try {
    sk::launch_skinny_gemm(ok, {x.data(), y.data(), nullptr, out.data()}, ws.data(), ws.bytes(), st);
    FAIL() << "short workspace was not refused";
  } catch (const dsv4::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
  // So is a workspace that is large enough but not 16-byte aligned (the slabs are accessed 16 bytes at a time).
  port::DeviceBuffer ws2(ok.workspace_bytes + 16);
  try {
    sk::launch_skinny_gemm(ok, {x.data(), y.data(), nullptr, out.data()}, static_cast<char*>(ws2.data()) + 8,
                           ok.workspace_bytes, st);
    FAIL() << "misaligned workspace was not refused";
  } catch (const dsv4::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not 16-byte aligned"), std::string::npos) << e.what();
  }
  EXPECT_EQ(last_id(), before) << "a refused shape reached the launch";
}
