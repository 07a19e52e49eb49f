// The skinny GEMM through the kernel registry (as check/zoo tools run it): kernel vs dsv4::run_reference
// ("skinny_gemm", the float64 reference of ops.md §6) per element, on the op's own generator (padded a rows hold
// NaN, every bias shape), plus the readback_one_pass zoo variant at the bug shape on the gfx950 profile.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/port/runtime.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace {

using dsv4::Json;

// Elements whose |kernel - reference| exceeds 1 ulp of the output format at |reference| plus 1e-4 (fp32
// accumulation slack for K <= 5248 at these input scales); returns failing rows.
std::vector<std::int64_t> failing_rows(const dsv4::Tensor& got, const dsv4::Tensor& ref) {
  std::vector<std::int64_t> rows;
  const int mant = got.dtype() == dsv4::DType::BF16 ? 7 : 10;
  for (std::int64_t n = 0; n < got.size(0); ++n)
    for (std::int64_t m = 0; m < got.size(1); ++m) {
      const double g = got.get({n, m}), r = ref.get({n, m});
      const double ulp = std::ldexp(1.0, (r == 0 ? -24 : std::max(std::ilogb(r), -14)) - mant);
      if (!(std::fabs(g - r) <= ulp + 1e-4)) {
        rows.push_back(n);
        break;
      }
    }
  return rows;
}

dsv4::Outputs run_kernel(const dsv4::OpCase& c, const dsv4::kernels::RunOptions& o, Json* plan) {
  const auto* k = dsv4::kernels::KernelRegistry::instance().find("skinny_gemm");
  EXPECT_NE(k, nullptr);
  dsv4::Outputs ref = dsv4::run_reference("skinny_gemm", c);
  dsv4::Outputs outs;
  for (auto& [name, t] : ref) {
    outs[name] = t.clone();
    outs[name].fill_bytes(0xff);  // poison
  }
  *plan = k->run(c, outs, o);
  return outs;
}

// A generated case of `shape` run with `o`; the rows failing against the reference (the plan JSON into *plan).
std::vector<std::int64_t> run_generated(const Json& shape, const dsv4::kernels::RunOptions& o, Json* plan) {
  const auto& d = dsv4::Registry::instance().get("skinny_gemm");
  auto rng = dsv4::test::rng_for_current_test();
  const dsv4::OpCase c = d.generate(rng, shape);
  const dsv4::Outputs got = run_kernel(c, o, plan);
  return failing_rows(got.at("out"), dsv4::run_reference("skinny_gemm", c).at("out"));
}

}  // namespace

TEST(SkinnyRunner, MatchesRegistryReferenceOnGeneratedCases) {
  if (!dsv4::port::device_available()) GTEST_SKIP() << dsv4::port::device_unavailable_reason();
  const auto& d = dsv4::Registry::instance().get("skinny_gemm");
  auto rng = dsv4::test::rng_for_current_test();
  std::vector<Json> shapes = d.default_shapes;
  shapes.push_back(Json{{"N", 65}, {"K", 1032}, {"M", 40}, {"Kap", 1048}, {"dtype", "bf16"}, {"bias", "1m"}});
  shapes.push_back(Json{{"N", 128}, {"K", 2056}, {"M", 16}, {"dtype", "fp16"}, {"bias", "nm"}});
  for (const Json& sh : shapes) {
    const dsv4::OpCase c = d.generate(rng, sh);
    Json plan;
    const dsv4::Outputs got = run_kernel(c, {}, &plan);
    const dsv4::Outputs ref = dsv4::run_reference("skinny_gemm", c);
    const auto bad = failing_rows(got.at("out"), ref.at("out"));
    EXPECT_TRUE(bad.empty()) << sh.dump() << " " << plan.value("text", "") << ": first failing row " << bad.front();
    EXPECT_EQ(plan.at("k_shards").get<std::int64_t>() * plan.at("k_shard_size").get<std::int64_t>() >=
                  sh.at("K").get<std::int64_t>(),
              true);
    if (plan.contains("tensor_core")) {  // sm_90 plans: the JSON names the kernel the text describes
      const std::string kern = plan.at("tensor_core").at("kernel").get<std::string>();
      EXPECT_TRUE(kern == "wgmma.m64nNk16" || kern == "mma.m16n8k16") << kern;
      EXPECT_NE(plan.value("text", "").find(kern == "wgmma.m64nNk16" ? "mma=wgmma" : "mma=m16n8k16"),
                std::string::npos)
          << plan.dump();
    }
  }
}

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

TEST(SkinnyRunner, ZooVariantReadbackOnePassFailsOnlyTheSecondNTile) {
  if (dsv4::port::backend() != dsv4::port::Backend::sim) GTEST_SKIP() << "the planted LDS overflow is run on sim only";
  dsv4::kernels::RunOptions o;
  o.arch = "gfx950";
  o.variant = "readback_one_pass";
  Json plan;
  const auto bad =
      run_generated(Json{{"N", 80}, {"K", 5248}, {"M", 16}, {"dtype", "bf16"}, {"bias", "m"}}, o, &plan);
  ASSERT_FALSE(bad.empty()) << plan.value("text", "");
  for (std::int64_t r : bad) EXPECT_GE(r, 64) << "row " << r << " is in N-tile 0, which fits the LDS";
  EXPECT_EQ(plan.at("tile_map").at("row_tile").get<std::int64_t>(), 64);
}
