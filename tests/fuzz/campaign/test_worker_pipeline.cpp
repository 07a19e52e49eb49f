// Tests of the pipelined campaign (reference/device overlap): with cases submitted ahead, a crashing
// worker charges the crash to the oldest unanswered case and the younger cases are resubmitted to a
// fresh child (none lost); a pipelined campaign gives exactly the tallies, coverage and checkpoint of a
// sequential one (results are consumed in submission order), through the real `dsv4check fuzz-worker`.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fuzz/campaign/campaign.hpp"
#include "fuzz/campaign/worker_process.hpp"

namespace fs = std::filesystem;
using namespace dsv4::fuzz;

namespace {

CaseSpec spec(std::uint64_t i) {
  CaseSpec s;
  s.op = "merge_attn_states";
  s.index = i;
  s.seed = 2000 + i;
  s.shape = {{"T", 4}, {"H", 2}, {"D", 64}};
  return s;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("dsv4_pipeline_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(WorkerPipeline, CrashChargesTheOldestCaseAndResubmitsTheYoungerOnes) {
  const fs::path dir = fresh_dir("crash");
  const std::string mark = (dir / "crashed-once").string();
  // First child: takes three cases, then dies by SIGSEGV. Later children answer every case "pass".
  const std::string script =
      "if [ -e " + mark + " ]; then while read l; do i=$(echo \"$l\" | sed 's/.*\"index\":\\([0-9]*\\).*/\\1/'); "
      "echo '{\"op\":\"merge_attn_states\",\"index\":'$i',\"status\":\"pass\"}'; done; "
      "else touch " + mark + "; read a; read b; read c; kill -SEGV $$; fi";
  WorkerProcess w({"/bin/sh", "-c", script});
  for (std::uint64_t i : {1, 2, 3}) w.submit(spec(i));
  EXPECT_EQ(w.outstanding(), 3u);
  const CaseResult r1 = w.next(30, UnderTestOptions{});
  EXPECT_EQ(r1.index, 1u);
  EXPECT_EQ(r1.status, CaseStatus::error);
  EXPECT_NE(r1.message.find("signal 11"), std::string::npos) << r1.message;
  EXPECT_NE(r1.repro.find("--seed 2001"), std::string::npos) << r1.repro;
  for (std::uint64_t i : {2, 3}) {
    const CaseResult r = w.next(30, UnderTestOptions{});
    EXPECT_EQ(r.index, i);
    EXPECT_EQ(r.status, CaseStatus::pass) << r.message;
  }
  EXPECT_EQ(w.outstanding(), 0u);
  fs::remove_all(dir);
}

TEST(WorkerPipeline, PipelinedCampaignEqualsSequentialCampaign) {
  CampaignState st[2];
  for (int prefetch : {0, 3}) {
    const fs::path dir = fresh_dir("campaign" + std::to_string(prefetch));
    CampaignOptions o;
    o.ops = {"merge_attn_states", "topk", "per_token_group_quant_fp8"};
    o.seed = 23;
    o.max_cases = 18;
    o.out_dir = dir.string();
    o.progress = false;
    o.prefetch = prefetch;
    o.worker_argv = {DSV4CHECK_EXE, "fuzz-worker", "--backend", "reference", "--prefetch", std::to_string(prefetch),
                     "--failure-dir", (dir / "failures").string()};
    EXPECT_EQ(run_campaign(o), 0);
    st[prefetch ? 1 : 0] = load_state(dir.string());
    fs::remove_all(dir);
  }
  ASSERT_EQ(st[0].ops.size(), 3u);
  std::uint64_t total = 0;
  for (auto& [op, t] : st[0].ops) {
    const OpTally& u = st[1].ops.at(op);
    EXPECT_EQ(t.next_index, u.next_index) << op;
    EXPECT_EQ(t.pass, u.pass) << op;
    EXPECT_EQ(t.discard, u.discard) << op;
    EXPECT_EQ(t.fail + t.error, 0u) << op;
    EXPECT_EQ(t.coverage, u.coverage) << op;
    EXPECT_TRUE(t.coverage.count("values")) << op << ": cases carry the values knob";
    total += t.cases();
  }
  EXPECT_EQ(total, 18u);
}
