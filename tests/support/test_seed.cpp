// Tests of the test seeds (tests/support/seed.cpp): RapidCheck runs from the RC_PARAMS the shared main installs,
// and the repro command names both seeds, so a failing property is replayed by the printed line.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {

// The shared main installed RC_PARAMS before any property ran; RapidCheck's configuration carries its seed.
TEST(TestSeeds, RapidCheckRunsFromTheInstalledSeed) {
  const std::string params = rapidcheck_params();
  ASSERT_FALSE(params.empty()) << "RC_PARAMS was not installed";
  if (params.rfind("seed=", 0) != 0) GTEST_SKIP() << "RC_PARAMS given by the caller: " << params;
  const std::uint64_t seed = std::strtoull(params.c_str() + 5, nullptr, 10);
  EXPECT_EQ(rc::detail::configuration().testParams.seed, seed) << params;
  if (const char* d = std::getenv("DSV4_SEED"); d && *d) {
    EXPECT_EQ(seed, base_seed()) << params;
  }
}

// Two runs of one property from the same RapidCheck parameters draw the same cases (what the repro line relies on).
TEST(TestSeeds, APropertyReplaysFromItsSeed) {
  auto draws = [] {
    std::vector<int> seen;
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.maxSuccess = 20;
    rc::detail::TestMetadata md;
    md.id = "TestSeeds/replay";
    rc::detail::checkTestable([&](int v) { seen.push_back(v); }, md, params);
    return seen;
  };
  const std::vector<int> a = draws(), b = draws();
  ASSERT_EQ(a.size(), 20u);
  EXPECT_EQ(a, b);
}

TEST(TestSeeds, ReproCommandNamesBothSeedsTheBinaryAndTheTest) {
  const std::string cmd = repro_command("./bin/t", "Suite", "Name");
  EXPECT_NE(cmd.find("DSV4_SEED=" + std::to_string(base_seed()) + " "), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("RC_PARAMS='" + rapidcheck_params() + "' "), std::string::npos) << cmd;
  EXPECT_NE(cmd.find(" ./bin/t --gtest_filter='Suite.Name'"), std::string::npos) << cmd;
}

}  // namespace
}  // namespace dsv4::test
