// Short, seeded RapidCheck runs inside a gtest: `check_short(n, prop)` checks `prop` on n cases with the
// RapidCheck seed taken from the test's seed helper (so DSV4_SEED reproduces it), and fails the gtest
// with RapidCheck's counterexample report. Properties print their one-line `dsv4check repro` command
// through RC_LOG, which RapidCheck shows with the counterexample.
#pragma once
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <sstream>
#include <string>

#include "tests/support/seed.hpp"

namespace dsv4::test {

template <typename Prop>
void check_short(int max_success, Prop&& prop, int max_size = 100) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string id = std::string(info->test_suite_name()) + "/" + info->name();
  rc::detail::TestMetadata md;
  md.id = id;
  md.description = info->name();
  rc::detail::TestParams params;
  params.seed = test_seed(id);
  params.maxSuccess = max_success;
  params.maxSize = max_size;
  params.maxDiscardRatio = 4;
  params.disableShrinking = true;  // the value is a seed: shrinking it only picks another case
  const auto result = rc::detail::checkTestable(std::forward<Prop>(prop), md, params);
  if (!result.template is<rc::detail::SuccessResult>()) {
    std::ostringstream ss;
    rc::detail::printResultMessage(result, ss);
    ADD_FAILURE() << "RapidCheck seed " << params.seed << ":\n" << ss.str();
  }
}

}  // namespace dsv4::test
