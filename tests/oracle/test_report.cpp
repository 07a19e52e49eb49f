// Reports: the one-line verdict, the text report's localisation and worst elements, JSON fields
// (with NaN/inf spelled as strings), and the heatmap PNG (valid header, dimensions).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "oracle/compare.hpp"
#include "oracle/report.hpp"
#include "tests/oracle/oracle_test_util.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

namespace {

Verdict planted_verdict() {
  auto rng = test::rng_for_current_test();
  Tensor e = testutil::randn(DType::F32, {128, 40}, rng);
  Tensor a = e.clone();
  for (std::int64_t r = 64; r < 128; ++r)
    for (std::int64_t c = 0; c < 40; ++c) a.set({r, c}, e.get({r, c}) + 0.5);
  a.set({3, 4}, std::nan(""));
  CompareContext ctx;
  ctx.output_name = "out";
  static TileMap tm;
  tm.rows = {64, "N-tile", {}};
  ctx.tiles = &tm;
  return compare(a, e, parse_policy("allclose", {{"atol", 1e-3}, {"rtol", 1e-2}}), ctx);
}

}  // namespace

TEST(Report, TextAndJson) {
  Verdict v = planted_verdict();
  ASSERT_FALSE(v.pass);
  std::string line = summary_line(v);
  EXPECT_EQ(line.rfind("FAIL out: allclose", 0), 0u) << line;
  EXPECT_NE(line.find("2561/5120 elements fail"), std::string::npos) << line;
  std::string text = text_report(v);
  EXPECT_NE(text.find("nan_mismatch=1"), std::string::npos) << text;
  EXPECT_NE(text.find("[3, 4]"), std::string::npos) << text;  // the NaN ranks worst
  Json j = to_json(v);
  EXPECT_EQ(j["pass"], false);
  EXPECT_EQ(j["failed"], 2561);
  EXPECT_EQ(j["worst"][0]["actual"], "nan");
  EXPECT_EQ(j["worst"][0]["index"], Json::array({3, 4}));
  EXPECT_EQ(j["where"]["rows"], "3, 64..127");
  EXPECT_EQ(j["params"]["atol"], 1e-3);
  EXPECT_EQ(Json::parse(j.dump())["failed"], 2561);  // valid JSON text
  JudgeResult r{"skinny_gemm", false, {v}};
  EXPECT_EQ(text_report(r).rfind("FAIL skinny_gemm: 0/1 outputs pass", 0), 0u);
}

TEST(Report, HeatmapPng) {
  Verdict v = planted_verdict();
  auto path = std::filesystem::temp_directory_path() / ("dsv4_oracle_heatmap_" + std::to_string(::getpid()) + ".png");
  ASSERT_TRUE(write_heatmap_png(v, path.string()));
  std::ifstream f(path, std::ios::binary);
  unsigned char h[24] = {};
  f.read(reinterpret_cast<char*>(h), 24);
  EXPECT_EQ(h[1], 'P');
  EXPECT_EQ(h[2], 'N');
  EXPECT_EQ(h[3], 'G');
  // IHDR width/height (big endian): 40 x 128 elements, enlarged by 256/128 = 2.
  std::uint32_t w = (h[16] << 24) | (h[17] << 16) | (h[18] << 8) | h[19];
  std::uint32_t ht = (h[20] << 24) | (h[21] << 16) | (h[22] << 8) | h[23];
  EXPECT_EQ(w, 80u);
  EXPECT_EQ(ht, 256u);
  std::filesystem::remove(path);
  Verdict empty;
  EXPECT_FALSE(write_heatmap_png(empty, path.string()));
}
