// The sm_90 skinny GEMM through the kernel registry on the sim's sm_90 profile (as check/zoo tools run it): the plan
// JSON reports the tensor-core layout a kernel engineer needs to reproduce a case (output-row slices, launch mode,
// how the K-shards are combined), consistent with the plan text, and the result matches dsv4::run_reference per row.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/port/runtime.hpp"
#include "tests/kernels/skinny_gemm/skinny_runner_util.hpp"

using dsv4::Json;
using namespace dsv4::test::skinny_runner;

// The registry run on the sim's sm_90 profile reports the tensor-core layout a kernel engineer needs to reproduce it:
// the output-row slicing (consistent with N and with the plan text) and the launch mode.
TEST(SkinnyRunner, Sm90PlanJsonNamesSlicesAndLaunchMode) {
  if (dsv4::port::backend() != dsv4::port::Backend::sim) GTEST_SKIP() << "runs the sm_90 profile on sim";
  dsv4::kernels::RunOptions o;
  o.arch = "sm_90";
  Json plan;
  const auto bad =
      run_generated(Json{{"N", 100}, {"K", 520}, {"M", 40}, {"dtype", "bf16"}, {"bias", "nm"}}, o, &plan);
  EXPECT_TRUE(bad.empty()) << plan.value("text", "") << ": first failing row " << bad.front();
  ASSERT_TRUE(plan.contains("tensor_core")) << plan.dump();
  const Json& tc = plan.at("tensor_core");
  EXPECT_TRUE(tc.at("overlap_previous").get<bool>()) << tc.dump();
  const auto slices = tc.at("output_row_slices").get<std::vector<std::int64_t>>();
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_GE(slices[0] * slices[1], 100) << tc.dump();
  EXPECT_LT((slices[0] - 1) * slices[1], 100) << tc.dump();
  if (tc.at("kernel").get<std::string>() == "wgmma.m64nNk16") {
    EXPECT_NE(plan.value("text", "").find("slices=" + std::to_string(slices[0]) + "x" + std::to_string(slices[1])),
              std::string::npos)
        << plan.dump();
  }
}

// The JSON names how the K-shards are combined as the plan text does (SkinnyPlan::describe, a separate path): none
// for one shard, cluster (with the cluster size, no workspace) or workspace. Under the committed time model the
// shapes give a one-shard plan and cluster-reduced ones; a refit that moves them fails the coverage check at the
// end, and the shapes must then be chosen anew.
TEST(SkinnyRunner, Sm90PlanJsonNamesTheShardReduction) {
  if (dsv4::port::backend() != dsv4::port::Backend::sim) GTEST_SKIP() << "runs the sm_90 profile on sim";
  dsv4::kernels::RunOptions o;
  o.arch = "sm_90";
  std::set<std::string> seen;
  for (const Json& shape : {Json{{"N", 100}, {"K", 520}, {"M", 40}, {"dtype", "bf16"}, {"bias", "nm"}},
                            Json{{"N", 40}, {"K", 2048}, {"M", 200}, {"dtype", "bf16"}, {"bias", "m"}},
                            Json{{"N", 1}, {"K", 16384}, {"M", 64}, {"dtype", "fp16"}, {"bias", "m"}}}) {
    Json plan;
    const auto bad = run_generated(shape, o, &plan);
    EXPECT_TRUE(bad.empty()) << plan.value("text", "") << ": first failing row " << bad.front();
    ASSERT_TRUE(plan.contains("tensor_core")) << plan.dump();
    const Json& tc = plan.at("tensor_core");
    const std::string reduction = tc.at("shard_reduction").get<std::string>();
    const std::string text = plan.value("text", "");
    const std::int64_t shards = plan.at("k_shards").get<std::int64_t>();
    const bool cluster_text = text.find("reduce=cluster") != std::string::npos;
    EXPECT_EQ(reduction, cluster_text ? "cluster" : shards == 1 ? "none" : "workspace") << text << "\n" << tc.dump();
    EXPECT_EQ(tc.at("cluster_blocks").get<std::int64_t>(), cluster_text ? shards : 1) << tc.dump();
    if (cluster_text) {
      EXPECT_EQ(plan.at("workspace_bytes").get<std::int64_t>(), 0) << plan.dump();
    }
    seen.insert(reduction);
  }
  // The model picks the workspace on sm_90 only for shapes too large for the sim (>= ~750 M multiply-adds: clusters
  // that cannot run in one wave); a forced workspace plan's name is checked in SkinnyPlan.ClusterReductionIsAPlanChoice.
  EXPECT_EQ(seen, (std::set<std::string>{"none", "cluster"})) << "the shapes no longer cover both";
}

