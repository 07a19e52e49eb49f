// Tests of the indexer_logits_paged float64 reference (ops.md §4.2): the paged result equals the
// non-paged reference on the same tokens read back through the block table (next_n 1..4, including
// next_n == H, known-bugs.md #8), NaN-poisoned unreferenced slots never leak, and bad input.
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "reference/ops/indexer_logits_paged/indexer_logits_paged.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

// Builds the non-paged case holding the same data: kv = all batches' tokens concatenated (read
// from the cache bytes by the layout rule), q reshaped to [B·next_n, H, D], ks/ke per row.
OpCase as_non_paged(const OpCase& p, std::vector<std::int64_t>& offsets) {
  const Tensor& q = p.in("q");
  const Tensor& cache = p.in("kv_cache");
  const Tensor& ctx = p.in("context_lens");
  const Tensor& bt = p.in("block_table");
  const std::int64_t B = q.size(0), nn = q.size(1), H = q.size(2), D = q.size(3), bkv = cache.size(1);
  std::vector<std::int64_t> len(B, 0);
  std::int64_t total = 0;
  offsets.assign(B, 0);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t j = 0; j < nn; ++j) len[b] = std::max<std::int64_t>(len[b], static_cast<std::int64_t>(ctx.get({b, j})));
    offsets[b] = total;
    total += len[b];
  }
  Tensor kv = Tensor::empty(q.dtype(), {total, D});
  Tensor sf = Tensor::empty(DType::F32, {total});
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(cache.data());
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < len[b]; ++t) {
      const auto blk = static_cast<std::int64_t>(bt.get({b, t / bkv}));
      const std::uint8_t* base = bytes + blk * bkv * (D + 4);
      for (std::int64_t d = 0; d < D; ++d) kv.set_code({offsets[b] + t, d}, base[(t % bkv) * D + d]);
      float s;
      std::memcpy(&s, base + bkv * D + (t % bkv) * 4, 4);
      sf.set({offsets[b] + t}, s);
    }
  OpCase c;
  c.inputs["q"] = q.contiguous().reshape({B * nn, H, D});
  c.inputs["kv"] = kv;
  c.inputs["kv_sf"] = sf;
  c.inputs["weights"] = p.in("weights");
  Tensor ks = Tensor::empty(DType::I32, {B * nn}), ke = Tensor::empty(DType::I32, {B * nn});
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t j = 0; j < nn; ++j) {
      ks.set({b * nn + j}, static_cast<double>(offsets[b]));
      ke.set({b * nn + j}, static_cast<double>(offsets[b]) + ctx.get({b, j}));
    }
  c.inputs["cu_seq_len_k_start"] = ks;
  c.inputs["cu_seq_len_k_end"] = ke;
  c.attrs = p.attrs;
  c.attrs.erase("max_context_len");
  return c;
}

std::int64_t longest_context(const OpCase& p) {
  const Tensor& ctx = p.in("context_lens");
  std::int64_t m = 0;
  for (std::int64_t i = 0; i < ctx.numel(); ++i) m = std::max<std::int64_t>(m, static_cast<std::int64_t>(ctx.get_linear(i)));
  return m;
}

// Draws a case of `shape` whose longest context is at least min_longest (redrawing from the test's rng).
void expect_paged_equals_non_paged(const Json& shape, const std::string& dot, std::int64_t min_longest = 0) {
  auto rng = test::rng_for_current_test();
  OpCase p = Registry::instance().get("indexer_logits_paged").generate(rng, shape);
  for (int tries = 0; longest_context(p) < min_longest && tries < 64; ++tries)
    p = Registry::instance().get("indexer_logits_paged").generate(rng, shape);
  ASSERT_GE(longest_context(p), min_longest) << shape.dump();
  p.attrs["dot"] = dot;
  const Tensor lp = run_reference("indexer_logits_paged", p).at("logits");
  std::vector<std::int64_t> off;
  OpCase n = as_non_paged(p, off);
  n.attrs["clean_logits"] = true;
  const Tensor ln = run_reference("indexer_logits", n).at("logits");
  const std::int64_t nn = p.in("q").size(1), max_ctx = lp.size(1);
  std::int64_t compared = 0;
  for (std::int64_t r = 0; r < lp.size(0); ++r) {
    const auto L = static_cast<std::int64_t>(p.in("context_lens").get({r / nn, r % nn}));
    for (std::int64_t k = 0; k < max_ctx; ++k) {
      if (k < L) {
        ASSERT_TRUE(std::isfinite(lp.get({r, k}))) << "row " << r << " k " << k << " (NaN slot leaked?)";
        ASSERT_EQ(lp.get({r, k}), ln.get({r, off[r / nn] + k})) << shape.dump() << " row " << r << " k " << k;
        ++compared;
      } else {
        ASSERT_EQ(lp.get({r, k}), -std::numeric_limits<double>::infinity());
      }
    }
  }
  EXPECT_GT(compared, 0);
}

TEST(IndexerLogitsPaged, EqualsNonPagedForNextN1To4) {
  for (std::int64_t nn : {1, 2, 3, 4})
    expect_paged_equals_non_paged(Json{{"B", 3}, {"next_n", nn}, {"H", 8}, {"D", 32}, {"block_kv", 8}, {"max_context_len", 45}},
                                  "fp32");
}

TEST(IndexerLogitsPaged, EqualsNonPagedWhenNextNEqualsHeads) {  // known-bugs.md #8: silent mis-broadcast
  expect_paged_equals_non_paged(Json{{"B", 2}, {"next_n", 4}, {"H", 4}, {"D", 16}, {"block_kv", 4}, {"max_context_len", 19}},
                                "fp32");
  expect_paged_equals_non_paged(Json{{"B", 2}, {"next_n", 2}, {"H", 2}, {"D", 16}, {"block_kv", 16}, {"max_context_len", 33}},
                                "bf16");
}

TEST(IndexerLogitsPaged, EqualsNonPagedAcrossKeyChunks) {
  // Contexts past two key chunks (indexer_core.hpp's kKeyChunk = 512), next_n rows of one batch ending
  // in different places, block_kv not dividing the chunk.
  expect_paged_equals_non_paged(Json{{"B", 3}, {"next_n", 2}, {"H", 4}, {"D", 16}, {"block_kv", 48}, {"max_context_len", 1300}},
                                "fp32", 1026);
}

TEST(IndexerLogitsPaged, ModelShapeAndFnuz) {
  expect_paged_equals_non_paged(Json{{"B", 1}, {"next_n", 2}, {"H", 64}, {"D", 128}, {"block_kv", 64}, {"max_context_len", 150}},
                                "fp32");
  expect_paged_equals_non_paged(
      Json{{"B", 2}, {"next_n", 1}, {"H", 4}, {"D", 32}, {"block_kv", 32}, {"max_context_len", 40}, {"dtype", "e4m3fnuz"}}, "fp32");
}

TEST(IndexerLogitsPaged, RowsUseTheirOwnWeightsAndLengths) {
  // Two rows of one batch with different context lengths and weights: hand-checked values.
  OpCase c;
  c.attrs["max_context_len"] = 3;
  c.inputs["q"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 2, 1, 2}, {0x38, 0x00, 0x40, 0x00});  // q0 [1,0], q1 [2,0]
  Tensor cache = Tensor::empty(DType::U8, {2, 2, 1, 6});
  cache.fill_bytes(0x7F);  // NaN codes everywhere
  const std::uint8_t k0[2] = {0x38, 0x38}, k1[2] = {0x30, 0x38}, k2[2] = {0xB8, 0x38};  // 1, 0.5, −1 in dim 0
  ops::paged_kv_write(cache, 1, 0, k0, 1.0f);   // tokens 0,1 in block 1, token 2 in block 0
  ops::paged_kv_write(cache, 1, 1, k1, 2.0f);
  ops::paged_kv_write(cache, 0, 0, k2, 1.0f);
  c.inputs["kv_cache"] = cache;
  c.inputs["weights"] = Tensor::from_f64(DType::F32, {2, 1}, {3, -1});
  c.inputs["context_lens"] = Tensor::from_f64(DType::I32, {1, 2}, {2, 3});
  c.inputs["block_table"] = Tensor::from_f64(DType::I32, {1, 2}, {1, 0});
  const Tensor l = run_reference("indexer_logits_paged", c).at("logits");
  EXPECT_EQ(l.get({0, 0}), 3.0);   // 1·1·3
  EXPECT_EQ(l.get({0, 1}), 3.0);   // 0.5·3·2
  EXPECT_EQ(l.get({0, 2}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(l.get({1, 0}), -2.0);  // 2·(−1)
  EXPECT_EQ(l.get({1, 1}), -2.0);  // 1·(−1)·2
  EXPECT_EQ(l.get({1, 2}), 0.0);   // relu(−2) = 0
}

TEST(IndexerLogitsPaged, BadInputNamesArgumentAndRule) {
  auto rng = test::rng_for_current_test();
  const Json shape{{"B", 2}, {"next_n", 2}, {"H", 4}, {"D", 16}, {"block_kv", 8}, {"max_context_len", 20}};
  auto expect_err = [](OpCase c, const std::string& needle) {
    try {
      run_reference("indexer_logits_paged", std::move(c));
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const OpCase good = Registry::instance().get("indexer_logits_paged").generate(rng, shape);
  OpCase c = good;
  c.attrs["clean_logits"] = true;
  expect_err(c, "must be false");
  c = good;
  c.attrs["max_context_len"] = 5;
  expect_err(c, "context_lens");
  c = good;
  Tensor bt = c.in("block_table").clone();
  bt.set({0, 0}, 999);
  c.inputs["block_table"] = bt;
  expect_err(c, "block_table");
  c = good;
  c.inputs["weights"] = Tensor::empty(DType::F32, {2, 4});
  expect_err(c, "B·next_n");
}

}  // namespace
}  // namespace dsv4
