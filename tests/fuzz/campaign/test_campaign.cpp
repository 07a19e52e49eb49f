// Tests of campaigns: resume continues without repeating cases, shards are disjoint and merge,
// failures survive a torn checkpoint, shape buckets and case seeds are as documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

#include "fuzz/campaign/campaign.hpp"
#include "fuzz/campaign/shape_space.hpp"
#include "kernels/kernel_registry.hpp"
#include "reference/registry/registry.hpp"

namespace fs = std::filesystem;
using namespace dsv4;
using namespace dsv4::fuzz;

namespace {
fs::path fresh_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("dsv4_fuzz_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

CampaignOptions options(const fs::path& dir, std::uint64_t cases, std::uint64_t shard = 0, std::uint64_t shards = 1) {
  CampaignOptions o;
  o.ops = {"merge_attn_states", "topk"};
  o.seed = 11;
  o.shard = shard;
  o.shards = shards;
  o.max_cases = cases;
  o.out_dir = dir.string();
  o.progress = false;
  o.worker_argv = {DSV4CHECK_EXE, "fuzz-worker", "--backend", "reference", "--failure-dir", (dir / "failures").string()};
  return o;
}

std::uint64_t total(const CampaignState& s) {
  std::uint64_t n = 0;
  for (auto& [op, t] : s.ops) n += t.cases();
  return n;
}
}  // namespace

TEST(Campaign, ResumeContinuesWhereItStoppedWithoutRepeating) {
  fs::path dir = fresh_dir("resume");
  ASSERT_EQ(run_campaign(options(dir, 6)), 0);
  CampaignState a = load_state(dir.string());
  EXPECT_EQ(total(a), 6u);
  EXPECT_EQ(a.ops["merge_attn_states"].next_index, 3u);
  ASSERT_EQ(run_campaign(options(dir, 10)), 0);  // same folder: resumes up to 10 in total
  CampaignState b = load_state(dir.string());
  EXPECT_EQ(total(b), 10u);
  EXPECT_EQ(b.ops["merge_attn_states"].next_index + b.ops["topk"].next_index, 10u);
  EXPECT_EQ(b.ops["merge_attn_states"].pass + b.ops["merge_attn_states"].discard, b.ops["merge_attn_states"].cases());
  EXPECT_TRUE(fs::exists(dir / "summary.md"));
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  // A different seed in the same folder is refused rather than mixed in.
  CampaignOptions other = options(dir, 12);
  other.seed = 12;
  EXPECT_THROW(run_campaign(other), InputError);
  fs::remove_all(dir);
}

TEST(Campaign, SummaryAndFinalLinesGiveEachOpsRateAndStageShares) {
  fs::path dir = fresh_dir("stages");
  testing::internal::CaptureStderr();
  ASSERT_EQ(run_campaign(options(dir, 6)), 0);
  const std::string err = testing::internal::GetCapturedStderr();
  std::ifstream f(dir / "summary.json");
  const Json j = Json::parse(f);
  for (const char* op : {"merge_attn_states", "topk"}) {
    const Json& t = j.at("ops").at(op);
    const StageSeconds s = StageSeconds::from_json(t.at("stages"));
    ASSERT_GT(s.total(), 0) << op;
    for (double v : {s.generate, s.reference, s.kernel, s.judge}) EXPECT_GT(v, 0) << op;
    EXPECT_NEAR((s.generate + s.reference + s.kernel + s.judge) / s.total(), 1.0, 1e-12);
    EXPECT_NEAR(t.at("cases_per_s").get<double>(), 3.0 / s.total(), 1e-9) << op;  // 3 cases each
    EXPECT_NE(err.find(std::string(op) + " "), std::string::npos) << err;
  }
  EXPECT_NE(err.find("time by stage this run: gen "), std::string::npos) << err;
  EXPECT_NE(err.find("cases/s (gen "), std::string::npos) << err;
  std::ifstream md(dir / "summary.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| cases/s | generate | reference | kernel | judge | bound by |"), std::string::npos);
}

TEST(Campaign, ShardsTakeDisjointIndicesAndMerge) {
  fs::path d0 = fresh_dir("shard0"), d1 = fresh_dir("shard1");
  ASSERT_EQ(run_campaign(options(d0, 4, 0, 2)), 0);
  ASSERT_EQ(run_campaign(options(d1, 4, 1, 2)), 0);
  CampaignState s0 = load_state(d0.string()), s1 = load_state(d1.string());
  // shard 0 took indices 0 and 2 of each op (next 3), shard 1 took 1 and 3 (next 4)
  EXPECT_EQ(s0.ops["topk"].next_index, 3u);
  EXPECT_EQ(s1.ops["topk"].next_index, 4u);
  CampaignState m = merge_states({s0, s1});
  EXPECT_EQ(total(m), 8u);
  fs::remove_all(d0);
  fs::remove_all(d1);
}

TEST(Campaign, FailuresAreReadBackAndATornLineIsSkipped) {
  fs::path dir = fresh_dir("torn");
  fs::create_directories(dir);
  CaseResult f;
  f.op = "topk";
  f.index = 9;
  f.seed = 99;
  f.status = CaseStatus::fail;
  f.message = "FAIL topk_indices";
  f.repro = "dsv4check repro --op topk --seed 99";
  {
    std::ofstream o(dir / "failures.jsonl");
    o << f.to_json().dump() << "\n" << "{\"op\":\"topk\",\"ind";  // torn last line (crash mid-write)
  }
  CampaignState s = load_state(dir.string());
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].index, 9u);
  EXPECT_EQ(s.failures[0].repro, f.repro);
  fs::remove_all(dir);
}

TEST(Campaign, CaseSeedsDependOnOpAndIndexOnly) {
  EXPECT_EQ(case_seed(1, "topk", 5), case_seed(1, "topk", 5));
  EXPECT_NE(case_seed(1, "topk", 5), case_seed(1, "topk", 6));
  EXPECT_NE(case_seed(1, "topk", 5), case_seed(1, "skinny_gemm", 5));
  EXPECT_NE(case_seed(1, "topk", 5), case_seed(2, "topk", 5));
}

TEST(Campaign, CoverageBucketsAndShapeArgs) {
  EXPECT_EQ(coverage_bucket(Json(7)), "=7");
  EXPECT_EQ(coverage_bucket(Json(5248)), "[4096, 8192)");
  EXPECT_EQ(coverage_bucket(Json("bf16")), "bf16");
  EXPECT_EQ(shape_arg(Json{{"K", 5248}, {"N", 65}, {"dtype", "bf16"}}), "K=5248,N=65,dtype=bf16");
  auto c = shrink_candidates(Json{{"K", 8}, {"dtype", "bf16"}});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]["K"], 4);
  EXPECT_EQ(c[1]["K"], 7);
}

TEST(Campaign, DrawnShapesStayInsideTheGenericSpace) {
  const OpDescriptor& d = Registry::instance().get("skinny_gemm");
  ASSERT_FALSE(d.default_shapes.empty());
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    Json s = draw_shape(d, rng);
    for (auto it = s.begin(); it != s.end(); ++it)
      if (it->is_number_integer()) EXPECT_GE(it->get<std::int64_t>(), 0) << s.dump();
  }
}

TEST(Campaign, BuggyKernelVariantIsFoundShrunkSavedAndReplayedByVerify) {
  if (std::string(kernels::backend_name()) != "sim") GTEST_SKIP() << "runs the sim kernels (this build: " << kernels::backend_name() << ")";
  auto run = [](const std::string& variant, const fs::path& dir) {
    CampaignOptions o = options(dir, 8);
    o.ops = {"merge_attn_states"};
    o.under_test.backend = "sim";
    o.under_test.variant = variant;
    o.worker_argv = {DSV4CHECK_EXE, "fuzz-worker", "--backend", "sim", "--variant", variant, "--failure-dir",
                     (dir / "failures").string()};
    return run_campaign(o);
  };
  fs::path good = fresh_dir("good"), bad = fresh_dir("bad");
  EXPECT_EQ(run("default", good), 0);  // the correct kernel raises no alarm over the same cases
  EXPECT_EQ(run("nan_both_empty", bad), 1);
  CampaignState s = load_state(bad.string());
  ASSERT_FALSE(s.failures.empty());
  const CaseResult& f = s.failures.front();
  EXPECT_EQ(f.status, CaseStatus::fail);
  EXPECT_NE(f.message.find("FAIL output"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("lie in"), std::string::npos) << f.message;  // localised by the oracle
  EXPECT_NE(f.repro.find("--variant nan_both_empty"), std::string::npos) << f.repro;
  // Shrinking never grows a shape.
  for (auto it = f.shape.begin(); it != f.shape.end(); ++it)
    if (it->is_number_integer()) EXPECT_LE(it->get<std::int64_t>(), f.original_shape[it.key()].get<std::int64_t>());
  ASSERT_FALSE(f.fixture.empty());
  ASSERT_TRUE(fs::exists(f.fixture));
  const std::string cmd = std::string(DSV4CHECK_EXE) + " verify " + f.fixture + " > /dev/null";
  const int st = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(st), 1) << cmd;  // the saved case replays as a mismatch
  fs::remove_all(good);
  fs::remove_all(bad);
}
