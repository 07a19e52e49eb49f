// Tests of fuzz-case isolation: a worker that crashes or hangs becomes an `error` result with the
// signal or the timeout, the supervisor restarts it, and stray output lines are skipped.
#include <gtest/gtest.h>

#include "fuzz/campaign/worker_process.hpp"

using namespace dsv4::fuzz;

namespace {
CaseSpec spec(std::uint64_t i) {
  CaseSpec s;
  s.op = "merge_attn_states";
  s.index = i;
  s.seed = 1000 + i;
  s.shape = {{"T", 4}, {"H", 2}, {"D", 64}};
  return s;
}
}  // namespace

TEST(WorkerProcess, CrashIsRecordedWithItsSignalAndTheWorkerRestarts) {
  WorkerProcess w({"/bin/sh", "-c", "read line; kill -SEGV $$"});
  UnderTestOptions uo;
  CaseResult r = w.run(spec(3), 30, uo);
  EXPECT_EQ(r.status, CaseStatus::error);
  EXPECT_NE(r.message.find("signal 11"), std::string::npos) << r.message;
  EXPECT_EQ(r.index, 3u);
  EXPECT_NE(r.repro.find("--seed 1003"), std::string::npos) << r.repro;
  CaseResult r2 = w.run(spec(4), 30, uo);  // a fresh child takes the next case
  EXPECT_EQ(r2.status, CaseStatus::error);
  EXPECT_EQ(r2.index, 4u);
}

TEST(WorkerProcess, HangPastTheTimeoutIsRecordedNotWaitedOut) {
  WorkerProcess w({"/bin/sh", "-c", "read line; sleep 30"});
  const auto t0 = std::chrono::steady_clock::now();
  CaseResult r = w.run(spec(7), 1.0, UnderTestOptions{});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, CaseStatus::error);
  EXPECT_NE(r.message.find("hang"), std::string::npos) << r.message;
  EXPECT_LT(secs, 10.0);
}

TEST(WorkerProcess, StrayOutputLinesAreSkipped) {
  WorkerProcess w({"/bin/sh", "-c",
                   "while read line; do echo 'kernel printf noise'; "
                   "echo '{\"op\":\"merge_attn_states\",\"index\":5,\"status\":\"pass\"}'; done"});
  CaseResult r = w.run(spec(5), 30, UnderTestOptions{});
  EXPECT_EQ(r.status, CaseStatus::pass) << r.message;
  EXPECT_EQ(r.index, 5u);
}

TEST(WorkerProcess, MissingExecutableIsAClearError) {
  WorkerProcess w({"/nonexistent/dsv4check", "fuzz-worker"});
  EXPECT_THROW(w.run(spec(1), 5, UnderTestOptions{}), std::runtime_error);
}
