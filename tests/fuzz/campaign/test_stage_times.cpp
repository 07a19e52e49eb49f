// Tests of fuzz/campaign/stage_times and of the stage seconds a case records: the shares and the bounding
// stage of hand-made times, every stage of a real case charged (reference backend), the stage sum within
// the case's wall time, and the JSON round trip a worker's result takes.
#include <gtest/gtest.h>

#include "fuzz/campaign/case_exec.hpp"
#include "fuzz/campaign/stage_times.hpp"

using namespace dsv4;
using namespace dsv4::fuzz;

TEST(StageTimes, SharesAndBoundOfHandMadeTimes) {
  StageSeconds s;
  s.generate = 1, s.reference = 6, s.kernel = 2, s.judge = 1;
  EXPECT_DOUBLE_EQ(s.total(), 10);
  EXPECT_STREQ(s.bound(), "reference");
  EXPECT_EQ(s.shares(), "gen 10% ref 60% kernel 20% judge 10%");
  EXPECT_DOUBLE_EQ(cases_per_second(5, s), 0.5);
  s.kernel = 7;
  EXPECT_STREQ(s.bound(), "kernel");
  StageSeconds t;
  t.judge = 3;
  s += t;
  EXPECT_DOUBLE_EQ(s.judge, 4);
  EXPECT_STREQ(StageSeconds{}.bound(), "-");
  EXPECT_DOUBLE_EQ(cases_per_second(3, StageSeconds{}), 0);
}

TEST(StageTimes, EveryStageOfARealCaseIsChargedWithinItsWallTime) {
  CaseSpec spec;
  spec.op = "skinny_gemm";
  spec.seed = 5;
  spec.shape = Json{{"N", 4}, {"K", 256}, {"M", 64}};
  ExecOptions o;
  o.under_test.backend = "reference";
  const CaseResult r = execute_case(spec, o);
  ASSERT_EQ(r.status, CaseStatus::pass) << r.message;
  EXPECT_GT(r.stages.generate, 0);
  EXPECT_GT(r.stages.reference, 0);
  EXPECT_GT(r.stages.kernel, 0);
  EXPECT_GT(r.stages.judge, 0);
  EXPECT_LE(r.stages.total(), r.seconds * 1.0001);
  EXPECT_GE(r.stages.total(), 0.5 * r.seconds);  // what is not in a stage (repro line, bookkeeping) is small
  const CaseResult back = CaseResult::from_json(Json::parse(r.to_json().dump()));
  EXPECT_DOUBLE_EQ(back.stages.generate, r.stages.generate);
  EXPECT_DOUBLE_EQ(back.stages.reference, r.stages.reference);
  EXPECT_DOUBLE_EQ(back.stages.kernel, r.stages.kernel);
  EXPECT_DOUBLE_EQ(back.stages.judge, r.stages.judge);
}

TEST(StageTimes, ADiscardChargesOnlyWhatRan) {
  CaseSpec spec;
  spec.op = "skinny_gemm";
  spec.seed = 5;
  spec.shape = Json{{"N", 4}, {"K", 7}, {"M", 64}};  // K % 8 != 0: the generator or the contract refuses it
  ExecOptions o;
  o.under_test.backend = "reference";
  const CaseResult r = execute_case(spec, o);
  ASSERT_EQ(r.status, CaseStatus::discard) << r.message;
  EXPECT_GT(r.stages.generate + r.stages.reference, 0);
  EXPECT_EQ(r.stages.kernel, 0);
  EXPECT_EQ(r.stages.judge, 0);
}
