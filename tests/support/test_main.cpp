// Shared gtest main: prints the base seed and RapidCheck's, and for every failed test a one-line command
// that reproduces it (same binary, same filter, same DSV4_SEED and RC_PARAMS). RapidCheck properties
// additionally print their own `reproduce` string (RC_PARAMS=reproduce=...), which replays the shrunk case.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/support/seed.hpp"

namespace {

std::string g_argv0;

class ReproPrinter : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.result()->Failed()) return;
    std::printf("[  REPRO   ] %s\n",
                dsv4::test::repro_command(g_argv0, info.test_suite_name(), info.name()).c_str());
  }
};

}  // namespace

int main(int argc, char** argv) {
  g_argv0 = argc > 0 ? argv[0] : "test";
  dsv4::test::install_rapidcheck_seed();  // before any property reads RC_PARAMS
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new ReproPrinter);
  if (!::testing::GTEST_FLAG(list_tests))  // keep the listing clean for gtest_discover_tests
    std::printf("[  SEED    ] DSV4_SEED=%llu RC_PARAMS='%s'\n", static_cast<unsigned long long>(dsv4::test::base_seed()),
                dsv4::test::rapidcheck_params().c_str());
  return RUN_ALL_TESTS();
}
