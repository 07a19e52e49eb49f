// Tests of the indexer_logits float64 reference (ops.md §4.1): hand-computed logits from fp8 codes,
// the dot:bf16 variant, compressed rows, empty rows, an independent naive loop, bad input.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// e4m3fn codes: 1.0 = 0x38, 2.0 = 0x40, 0.5 = 0x30, −1 = 0xB8, 2^-8 = 0x02 (subnormal).
OpCase hand_case() {
  OpCase c;
  c.inputs["q"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 2, 2}, {0x38, 0x40, 0xB8, 0x30});   // h0 [1,2], h1 [−1,0.5]
  c.inputs["kv"] = Tensor::from_codes(DType::F8_E4M3FN, {3, 2}, {0xB8, 0x38, 0x40, 0xB0, 0x30, 0x30});  // [−1,1],[2,−0.5],[.5,.5]
  c.inputs["kv_sf"] = Tensor::from_f64(DType::F32, {3}, {1, 0.5, 2});
  c.inputs["weights"] = Tensor::from_f64(DType::F32, {1, 2}, {1, -2});
  c.inputs["cu_seq_len_k_start"] = Tensor::from_f64(DType::I32, {1}, {0});
  c.inputs["cu_seq_len_k_end"] = Tensor::from_f64(DType::I32, {1}, {2});
  return c;
}

TEST(IndexerLogits, HandComputed) {
  const Tensor l = run_reference("indexer_logits", hand_case()).at("logits");
  ASSERT_EQ(l.shape(), (Shape{1, 3}));
  // j=0: h0 dot 1 → 1·1; h1 dot 1.5 → 1.5·(−2); sf 1 → −2.
  EXPECT_EQ(l.get({0, 0}), -2.0);
  // j=1: h0 dot 2−1 = 1 → 1; h1 dot −2.25 → relu 0; sf 0.5 → 0.5.
  EXPECT_EQ(l.get({0, 1}), 0.5);
  EXPECT_EQ(l.get({0, 2}), -kInf);  // outside [ks, ke)
}

TEST(IndexerLogits, CompressedRowsStartAtKs) {
  OpCase c = hand_case();
  c.inputs["cu_seq_len_k_start"] = Tensor::from_f64(DType::I32, {1}, {1});
  c.inputs["cu_seq_len_k_end"] = Tensor::from_f64(DType::I32, {1}, {3});
  c.attrs = {{"clean_logits", false}, {"max_seqlen_k", 4}};
  const Tensor l = run_reference("indexer_logits", c).at("logits");
  ASSERT_EQ(l.shape(), (Shape{1, 4}));
  EXPECT_EQ(l.get({0, 0}), 0.5);            // key 1
  EXPECT_EQ(l.get({0, 1}), 3.0);  // key 2: h0 dot 0.5+1 = 1.5 → 1.5; h1 dot −0.25 → 0; sf 2
  EXPECT_EQ(l.get({0, 2}), -kInf);
  EXPECT_EQ(l.get({0, 3}), -kInf);
}

TEST(IndexerLogits, Bf16DotVariantRoundsEachDot) {
  // q·k = 1 + 2^-8 is a bf16 tie between 1 and 1+2^-7: dot:bf16 gives 1, dot:fp32 keeps 1.00390625.
  OpCase c;
  c.inputs["q"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 1, 2}, {0x38, 0x02});
  c.inputs["kv"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 2}, {0x38, 0x38});
  c.inputs["kv_sf"] = Tensor::from_f64(DType::F32, {1}, {1});
  c.inputs["weights"] = Tensor::from_f64(DType::F32, {1, 1}, {1});
  c.inputs["cu_seq_len_k_start"] = Tensor::from_f64(DType::I32, {1}, {0});
  c.inputs["cu_seq_len_k_end"] = Tensor::from_f64(DType::I32, {1}, {1});
  EXPECT_EQ(run_reference("indexer_logits", c).at("logits").get({0, 0}), 1.00390625);
  c.attrs["dot"] = "bf16";
  EXPECT_EQ(run_reference("indexer_logits", c).at("logits").get({0, 0}), 1.0);
}

TEST(IndexerLogits, MatchesNaiveLoopWithEmptyRows) {
  auto rng = test::rng_for_current_test();
  const auto& d = Registry::instance().get("indexer_logits");
  for (const char* dt : {"e4m3fn", "e4m3fnuz"}) {
    OpCase c = d.generate(rng, Json{{"S", 6}, {"S_kv", 41}, {"H", 8}, {"D", 32}, {"dtype", dt}});
    const Tensor l = run_reference("indexer_logits", c).at("logits");
    const Tensor &q = c.in("q"), &kv = c.in("kv"), &sf = c.in("kv_sf"), &w = c.in("weights");
    int finite = 0, empty_rows = 0;
    for (std::int64_t i = 0; i < 6; ++i) {
      const auto ks = static_cast<std::int64_t>(c.in("cu_seq_len_k_start").get({i}));
      const auto ke = static_cast<std::int64_t>(c.in("cu_seq_len_k_end").get({i}));
      empty_rows += ks == ke;
      for (std::int64_t j = 0; j < 41; ++j) {
        if (j < ks || j >= ke) {
          EXPECT_EQ(l.get({i, j}), -kInf);
          continue;
        }
        long double acc = 0;
        for (std::int64_t h = 0; h < 8; ++h) {
          long double dot = 0;
          for (std::int64_t k = 0; k < 32; ++k) dot += static_cast<long double>(q.get({i, h, k})) * kv.get({j, k});
          acc += std::max<long double>(dot, 0) * w.get({i, h});
        }
        ASSERT_EQ(l.get({i, j}), static_cast<float>(acc * sf.get({j}))) << dt << " " << i << "," << j;
        finite++;
      }
    }
    EXPECT_GT(finite, 20);
    EXPECT_GE(empty_rows, 1);  // generator plants ks = ke on row 1
  }
}

TEST(IndexerLogits, MatchesNaiveLoopAcrossKeyChunks) {
  // Key ranges across the 512-key chunks of indexer_core.hpp: a whole row of 1101 keys, one starting at
  // key 511 and ending at 1025 (two chunk edges), one of a single key at 1024, an empty row, and enough
  // rows meeting every chunk (6-7) that each chunk's queries split into groups of kQueriesPerChunk;
  // full-width and compressed.
  auto rng = test::rng_for_current_test();
  const std::int64_t S = 8, S_kv = 1101, H = 4, D = 16;
  OpCase c = Registry::instance().get("indexer_logits").generate(rng, Json{{"S", S}, {"S_kv", S_kv}, {"H", H}, {"D", D}});
  const std::vector<double> ks{0, 511, 1024, 3, 0, 600, 7, 100}, ke{1101, 1025, 1025, 700, 512, 1101, 7, 1100};
  c.inputs["cu_seq_len_k_start"] = Tensor::from_f64(DType::I32, {S}, ks);
  c.inputs["cu_seq_len_k_end"] = Tensor::from_f64(DType::I32, {S}, ke);
  for (const bool compressed : {false, true}) {
    c.attrs["clean_logits"] = !compressed;
    c.attrs["max_seqlen_k"] = compressed ? S_kv : 0;
    const Tensor l = run_reference("indexer_logits", c).at("logits");
    const Tensor &q = c.in("q"), &kv = c.in("kv"), &sf = c.in("kv_sf"), &w = c.in("weights");
    for (std::int64_t i = 0; i < S; ++i)
      for (std::int64_t j = 0; j < S_kv; ++j) {
        const auto lo = static_cast<std::int64_t>(ks[i]), hi = static_cast<std::int64_t>(ke[i]);
        const std::int64_t key = compressed ? lo + j : j;
        if (key < lo || key >= hi) {
          ASSERT_EQ(l.get({i, j}), -kInf) << "compressed " << compressed << " row " << i << " col " << j;
          continue;
        }
        long double acc = 0;
        for (std::int64_t h = 0; h < H; ++h) {
          long double dot = 0;
          for (std::int64_t k = 0; k < D; ++k) dot += static_cast<long double>(q.get({i, h, k})) * kv.get({key, k});
          acc += std::max<long double>(dot, 0) * w.get({i, h});
        }
        ASSERT_EQ(l.get({i, j}), static_cast<float>(acc * sf.get({key}))) << "compressed " << compressed << " row " << i
                                                                           << " col " << j;
      }
  }
}

TEST(IndexerLogits, BadInputNamesArgumentAndRule) {
  auto expect_err = [](OpCase c, const std::string& needle) {
    try {
      run_reference("indexer_logits", std::move(c));
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  OpCase c = hand_case();
  c.attrs["max_seqlen_k"] = 4;
  expect_err(c, "incompatible with clean_logits");
  c = hand_case();
  c.inputs["cu_seq_len_k_end"] = Tensor::from_f64(DType::I32, {1}, {4});
  expect_err(c, "ke = 4 <= S_kv = 3");
  c = hand_case();
  c.inputs["kv_sf"] = Tensor::from_f64(DType::F32, {3}, {1, -0.5, 2});
  expect_err(c, "kv_sf[1]");
  c = hand_case();
  c.inputs["kv"] = Tensor::empty(DType::F8_E4M3FNUZ, {3, 2});
  expect_err(c, "'kv'");
  c = hand_case();
  c.inputs["weights"] = Tensor::from_f64(DType::F32, {1, 3}, {1, 1, 1});
  expect_err(c, "'weights'");
}

}  // namespace
}  // namespace dsv4
