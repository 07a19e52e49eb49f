// Every kernel entry, checked the same way: it offers a plan sweep for each device kernel it launches, each sweep
// admits plans on every AMD profile with LDS within the capacity, and the AMD budget check finds a sweep for each
// kernel by its demangled name (template instances, anonymous namespaces) and none for a kernel nobody registered.
// One instance per kernel entry (the count comes from the registry); an entry's op must be a registered op.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "kernels/kernel_registry.hpp"
#include "reference/registry/registry.hpp"
#include "tools/dsv4check/amd_kernel_plans.hpp"

namespace dsv4 {
namespace {

using kernels::KernelEntry;
using kernels::KernelRegistry;
using kernels::PlanSweep;

class KernelEntryTest : public ::testing::TestWithParam<std::string> {
 protected:
  const KernelEntry& entry() const { return *KernelRegistry::instance().find(GetParam()); }
};

TEST_P(KernelEntryTest, IsARegisteredOpAndRunsAndHasVariants) {
  EXPECT_NE(Registry::instance().find(GetParam()), nullptr) << "a kernel for an op the registry does not have";
  EXPECT_TRUE(entry().run);
  ASSERT_FALSE(entry().variants.empty());
  EXPECT_EQ(entry().variants.front(), "default");
  EXPECT_FALSE(entry().check_shapes.empty());
}

TEST_P(KernelEntryTest, OffersAPlanSweep) {
  EXPECT_FALSE(entry().plan_sweeps.empty()) << GetParam() << ": no plan sweep for the AMD budget check";
}

// Every sweep (the entries' and those of kernels without an op) admits plans on each AMD profile, within its LDS.
TEST(PlanSweeps, AdmitPlansWithinTheCapacityOfEveryAmdProfile) {
  const auto sweeps = KernelRegistry::instance().plan_sweeps();
  for (const PlanSweep* s : sweeps) {
    SCOPED_TRACE(s->device_kernel);
    EXPECT_EQ(s->device_kernel.rfind("dsv4::kernels::", 0), 0u);
    EXPECT_EQ(amd::device_kernel_name(s->device_kernel), s->device_kernel) << "not a plain qualified name";
    ASSERT_TRUE(s->sweep);
    for (const port::ArchProfile* prof : {&port::kGfx942, &port::kGfx950}) {
      const kernels::LaunchBudget b = s->sweep(*prof);
      EXPECT_GT(b.admitted, 0u) << prof->name << ": the sweep admits no plan";
      EXPECT_LE(b.dynamic_lds + b.static_lds.value_or(0), prof->lds_bytes_per_block) << prof->name;
      EXPECT_NE(b.source.find(std::string(prof->name)), std::string::npos) << b.source;
    }
  }
}

std::vector<std::string> kernel_ops() {
  std::vector<std::string> r;
  for (const KernelEntry* e : KernelRegistry::instance().all()) r.push_back(e->op);
  return r;
}
INSTANTIATE_TEST_SUITE_P(Kernels, KernelEntryTest, ::testing::ValuesIn(kernel_ops()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(PlanSweeps, DeviceKernelNamesReadDemangledSymbols) {
  EXPECT_EQ(amd::device_kernel_name("dsv4::kernels::merge::(anonymous namespace)::merge_kernel(dsv4::kernels::merge::"
                                    "(anonymous namespace)::MParams)"),
            "dsv4::kernels::merge::merge_kernel");
  EXPECT_EQ(amd::device_kernel_name("void dsv4::kernels::skinny::(anonymous namespace)::skinny_gemm_kernel<true, 4>"
                                    "(dsv4::kernels::skinny::KParams)"),
            "dsv4::kernels::skinny::skinny_gemm_kernel");
  EXPECT_EQ(amd::device_kernel_name("amd_fixture_within_budget"), "amd_fixture_within_budget");
}

TEST(PlanSweeps, TheBudgetCheckFindsEverySweepAndNothingElse) {
  std::set<std::string> names;
  for (const PlanSweep* s : KernelRegistry::instance().plan_sweeps()) names.insert(s->device_kernel);
  for (const std::string& n : names) {
    const auto e = amd::plan_expectation("void " + n + "<1>(int)", "gfx942");
    ASSERT_TRUE(e) << n;
    EXPECT_NE(e->source.find("plan sweep"), std::string::npos) << n;
  }
  EXPECT_FALSE(amd::plan_expectation("amd_fixture_within_budget", "gfx942"));
  EXPECT_FALSE(amd::plan_expectation("dsv4::kernels::merge::merge_kernel_v2(int)", "gfx942"))
      << "names match exactly, not as substrings";
  // Two ops launch the block-scaled GEMM kernel: the check takes the largest of both sweeps.
  const auto bs = amd::plan_expectation("dsv4::kernels::bsgemm::bs_gemm_kernel(int)", "gfx950");
  ASSERT_TRUE(bs);
  EXPECT_NE(bs->source.find("fp8_gemm_blockscaled"), std::string::npos);
  EXPECT_NE(bs->source.find("fp8_einsum"), std::string::npos);
}

}  // namespace
}  // namespace dsv4
