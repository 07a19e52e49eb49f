// Device tests of the sm_90 skinny GEMM kernels (label gpu, an H200; skipped on sim, where test_skinny_mma_sim runs
// the same sweeps under the sm_90 profile, and on other devices): every warpgroup layout, output-row slices, cluster
// against workspace reduction, the producer-warp kernel, the issue-5 sweep with each split-K tensor-core kernel
// forced, misaligned out and bias through both epilogues, and refusal before launch of a workspace-reduced plan.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"
#include "kernels/port/runtime.hpp"
#include "tests/kernels/nvidia/skinny_gemm/sm90_sweep_checks.hpp"
#include "tests/kernels/skinny_gemm/skinny_device_checks.hpp"
#include "tests/support/seed.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;
using namespace dsv4::test::skinny;

namespace {

#define SKINNY_REQUIRE_SM90_DEVICE()                                                       \
  if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason();        \
  if (on_sim() || port::device_profile().arch != port::Arch::sm_90)                        \
  GTEST_SKIP() << "the sm_90 kernels run on sm_90 devices (sim: test_skinny_mma_sim)"

// The plan of a shape on the device under `opt`.
PlanOf planned_with(sk::Sm90Options opt) {
  return [opt](const sk::SkinnyShape& s) { return sk::make_plan(s, port::device_profile(), opt); };
}

}  // namespace

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

// The issue-5 sweep (the plan's own choice: test_skinny_gemm_device) with each split-K tensor-core kernel forced.
TEST(SkinnyDevice, Sm90SweepWithEachTensorCoreKernelForcedMatchesReferencePerRow) {
  SKINNY_REQUIRE_SM90_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(2, std::size_t{16} << 20, 0);
  port::Stream st;
  std::vector<PlanOf> plans;
  for (sk::TensorCoreKernel k : {sk::TensorCoreKernel::mma_m16n8k16, sk::TensorCoreKernel::wgmma}) {
    sk::Sm90Options opt;
    opt.force_kernel = k;
    plans.push_back(planned_with(opt));
  }
  int cases = 0;
  const std::vector<std::string> failures = issue5_sweep(plans, pool, st, rng, &cases);
  for (const auto& f : failures) ADD_FAILURE() << f;
  std::cout << "[skinny] sm_90 forced-kernel sweep: " << cases << " cases, " << failures.size() << " failing\n";
  for (std::int32_t v : pool.read_all_counters(sk::kCounterRegionBytes)) ASSERT_EQ(v, 0);
}

// Misaligned out and bias (check_misaligned_out_and_bias) on the split-K kernels (the producer-warp kernel's:
// sweep_producer_warp): split plans and one-shard plans, whose direct epilogue stores the output.
TEST(SkinnyDevice, Sm90MisalignedOutAndBiasMatchReference) {
  SKINNY_REQUIRE_SM90_DEVICE();
  auto rng = dsv4::test::rng_for_current_test();
  sk::SkinnyWorkspacePool pool(1, std::size_t{16} << 20, 0);
  port::Stream st;
  std::vector<PlanOf> plans;
  for (int one_shard : {0, 1}) {
    sk::Sm90Options opt;
    opt.force_chunks_per_shard = one_shard ? 64 : 0;
    opt.allow_producer_warp = false;
    plans.push_back(planned_with(opt));
  }
  const EpilogueCounts n = check_misaligned_out_and_bias(plans, pool, st, rng);
  EXPECT_GT(n.split, 0) << "no split plan: the readback epilogue was not covered";
  EXPECT_GT(n.direct, 0) << "no one-shard plan: the direct epilogue was not covered";
}

// Refusal before launch (check_refused_before_launch) with a plan that reduces its shards through the workspace (a
// cluster-reduced one needs none).
TEST(SkinnyDevice, Sm90RefusedBeforeLaunchWithTheLimit) {
  SKINNY_REQUIRE_SM90_DEVICE();
  sk::Sm90Options through_workspace;
  through_workspace.force_cluster_reduce = 1;
  check_refused_before_launch(planned_with(through_workspace));
}
