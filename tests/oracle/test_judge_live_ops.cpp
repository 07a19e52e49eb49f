// judge() on live registry ops with their own references and error models: skinny_gemm with a
// dropped K-shard in one N-tile (caught by the op's error-bound default, localised to the tile,
// reported as text, JSON and a heatmap), and the topk reference's own output under topk-set.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "oracle/default_policies.hpp"
#include "oracle/judge.hpp"
#include "oracle/report.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

TEST(JudgeLiveOps, SkinnyGemmDroppedShardCaughtAndLocalised) {
  Registry& reg = Registry::instance();
  const OpDescriptor* d = reg.find("skinny_gemm");
  if (!d || !d->generate || !d->error_bound) GTEST_SKIP() << "skinny_gemm descriptor/error model not registered";
  require_default_policies(reg);
  auto rng = test::rng_for_current_test();
  OpCase c = d->generate(rng, Json{{"N", 32}, {"K", 2048}, {"M", 48}, {"dtype", "bf16"}, {"bias", "none"}});
  Outputs expected = run_reference("skinny_gemm", c);
  // A kernel whose rows 16..31 (N-tile 1) lost the partial sum of K-shard 2 (k in [1024, 1536)).
  const std::vector<double> A = c.in("a").contiguous().to_f64(), B = c.in("b").contiguous().to_f64();
  const std::int64_t K = c.in("a").size(1);
  ASSERT_EQ(K, 2048);
  Tensor out = expected.at("out").clone();
  for (std::int64_t n = 16; n < 32; ++n)
    for (std::int64_t m = 0; m < 48; ++m) {
      double s = 0, part = 0;
      for (std::int64_t k = 0; k < 2048; ++k) {
        double p = A[n * K + k] * B[m * K + k];
        s += p;
        if (k >= 1024 && k < 1536) part += p;
      }
      out.set({n, m}, s - part);
    }
  TileMap tm;
  tm.rows = {16, "N-tile", {}};
  tm.k_shards = 4;
  tm.k_shard_size = 512;
  tm.plan = "test split-K";
  JudgeResult ok = judge(*d, c, expected, expected, {}, &tm);
  EXPECT_TRUE(ok.pass) << text_report(ok);
  JudgeResult r = judge(*d, c, expected, Outputs{{"out", out}}, {}, &tm);
  EXPECT_FALSE(r.pass);
  ASSERT_EQ(r.outputs.size(), 1u);
  const Verdict& v = r.outputs[0];
  EXPECT_EQ(v.policy, "error-bound");
  EXPECT_EQ(v.where.row_tiles, (std::vector<std::int64_t>{1}));
  for (auto row : v.where.rows) EXPECT_TRUE(row >= 16 && row < 32) << row;
  EXPECT_NE(v.where.summary.find("(N-tile 1)"), std::string::npos) << v.where.summary;
  std::string text = text_report(r);
  std::printf("%s", text.c_str());
  EXPECT_EQ(to_json(r)["outputs"][0]["where"]["row_tiles"], Json::array({1}));
  auto png = std::filesystem::temp_directory_path() / ("dsv4_oracle_live_" + std::to_string(::getpid()) + ".png");
  EXPECT_TRUE(write_heatmap_png(v, png.string()));
  EXPECT_GT(std::filesystem::file_size(png), 100u);
  std::filesystem::remove(png);
}

TEST(JudgeLiveOps, TopkReferenceOutputPassesItsOwnPolicyAndAPermutationToo) {
  Registry& reg = Registry::instance();
  const OpDescriptor* d = reg.find("topk");
  if (!d || !d->generate) GTEST_SKIP() << "topk descriptor/generator not registered";
  require_default_policies(reg);
  auto rng = test::rng_for_current_test();
  OpCase c = d->generate(rng, d->default_shapes.empty() ? Json::object() : d->default_shapes.front());
  Outputs expected = run_reference("topk", c);
  EXPECT_TRUE(judge(*d, c, expected, expected).pass);
  // Reverse each row's order (order is unspecified): still a pass; drop the first entry of a full
  // row for -1: a fail.
  Tensor rev = expected.at("topk_indices").clone();
  std::int64_t R = rev.size(0), K = rev.size(1);
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t j = 0; j < K / 2; ++j) {
      double x = rev.get({r, j});
      rev.set({r, j}, rev.get({r, K - 1 - j}));
      rev.set({r, K - 1 - j}, x);
    }
  EXPECT_TRUE(judge(*d, c, expected, Outputs{{"topk_indices", rev}}).pass);
  Tensor bad = expected.at("topk_indices").clone();
  for (std::int64_t r = 0; r < R; ++r)
    if (bad.get({r, 0}) != -1) {
      bad.set({r, 0}, -1);
      break;
    }
  EXPECT_FALSE(judge(*d, c, expected, Outputs{{"topk_indices", bad}}).pass);
}
