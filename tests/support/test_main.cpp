// Shared gtest main: prints the base seed, and for every failed test a one-line command that
// reproduces it (same binary, same filter, same DSV4_SEED). RapidCheck properties additionally
// print their own `reproduce` string through RC_PARAMS.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/support/seed.hpp"

namespace {

std::string g_argv0;

class ReproPrinter : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.result()->Failed()) return;
    std::printf("[  REPRO   ] DSV4_SEED=%llu %s --gtest_filter='%s.%s'\n",
                static_cast<unsigned long long>(dsv4::test::base_seed()), g_argv0.c_str(),
                info.test_suite_name(), info.name());
  }
};

}  // namespace

int main(int argc, char** argv) {
  g_argv0 = argc > 0 ? argv[0] : "test";
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new ReproPrinter);
  if (!::testing::GTEST_FLAG(list_tests))  // keep the listing clean for gtest_discover_tests
    std::printf("[  SEED    ] DSV4_SEED=%llu\n", static_cast<unsigned long long>(dsv4::test::base_seed()));
  return RUN_ALL_TESTS();
}
