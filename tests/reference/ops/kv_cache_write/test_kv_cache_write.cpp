// Tests of the kv_cache_write reference (quantize-and-insert into FP8 sparse KV caches): write then
// dequantize vs the input within the quantization bound, the byte layout at exact offsets (both
// layouts), scale recipes against hand values and against the formats library's recipes
// (independent implementation), non-finite tiles, padding slots, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "reference/formats/recipes.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

Outputs run(const OpCase& c) { return run_reference("kv_cache_write", c); }

const std::uint8_t* bytes(const Tensor& t) { return reinterpret_cast<const std::uint8_t*>(t.data()); }

float get_f32(const std::uint8_t* p) { float v; std::memcpy(&v, p, 4); return v; }

OpCase write_case(kv::CacheLayout l, const Tensor& rows, std::vector<std::int64_t> slots, std::int64_t nb,
                  std::int64_t bs, const std::string& recipe) {
  OpCase c;
  c.inputs["kv"] = rows;
  Tensor sm = Tensor::empty(DType::I64, {static_cast<std::int64_t>(slots.size())});
  for (std::size_t i = 0; i < slots.size(); ++i) sm.set_code({static_cast<std::int64_t>(i)}, static_cast<std::uint64_t>(slots[i]));
  c.inputs["slot_mapping"] = sm;
  c.inputs["k_cache"] = kv::alloc_cache(l, nb, bs);
  c.attrs = {{"cache_layout", kv::cache_layout_name(l)}, {"scale_recipe", recipe}};
  return c;
}

Tensor random_rows(std::mt19937_64& rng, std::int64_t n, std::int64_t d) {
  std::normal_distribution<double> g(0.0, 1.0);
  Tensor t = Tensor::empty(DType::BF16, {n, d});
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < d; ++k) t.set({i, k}, g(rng) * (i % 3 == 0 ? 1e-3 : i % 3 == 1 ? 1.0 : 50.0));
  return t;
}
}  // namespace

TEST(KvCacheWrite, WriteThenDequantizeIsWithinTheQuantizationBound) {
  auto rng = test::rng_for_current_test();
  for (auto l : {kv::CacheLayout::V32_FP8Sparse, kv::CacheLayout::MODEL1_FP8Sparse})
    for (std::string recipe : {"flashmla-kv-test", "vllm-v4-kv"}) {
      const auto& li = kv::layout_info(l);
      Tensor rows = random_rows(rng, 9, li.d_qk);
      OpCase c = write_case(l, rows, {5, 0, 17, 3, 11, 8, 1, 19, 12}, 4, 5, recipe);
      Tensor cache = run(c)["k_cache"];
      auto v = kv::cache_view("t", "k_cache", cache, l);
      std::vector<double> row(li.d_qk);
      for (std::int64_t i = 0; i < 9; ++i) {
        const auto slot = static_cast<std::int64_t>(c.inputs["slot_mapping"].code({i}));
        kv::dequantize_slot(v, slot, {}, row.data());
        for (int t = 0; t < li.n_tiles; ++t) {
          double amax = 0;
          for (int k = 0; k < li.tile; ++k) amax = std::max(amax, std::fabs(rows.get({i, t * li.tile + k})));
          // Power-of-two scale s with amax/s <= 448: |err| <= max(|x| 2^-4, s 2^-10) (e4m3 half ulp).
          const double s = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(std::max(amax, 1e-4 * 448) / 448))) + 1);
          for (int k = 0; k < li.tile; ++k) {
            const double x = rows.get({i, t * li.tile + k}), y = row[t * li.tile + k];
            EXPECT_LE(std::fabs(x - y), std::max(std::fabs(x) * 0x1p-4, s * 0x1p-10)) << recipe << " " << i << " " << k;
          }
        }
        for (int k = li.d_nope; k < li.d_qk; ++k) EXPECT_EQ(row[k], rows.get({i, k}));  // RoPE exact
      }
    }
}

TEST(KvCacheWrite, V32ByteLayoutAtExactOffsets) {
  // One row: tile 0 all 448 (scale 1), tile 1 all 0.5 with one -1.0, tiles 2/3 = 3.0; RoPE = 1.5.
  Tensor rows = Tensor::empty(DType::BF16, {1, 576});
  for (int k = 0; k < 576; ++k) rows.set({0, k}, k < 128 ? 448.0 : k < 256 ? 0.5 : k < 512 ? 3.0 : 1.5);
  rows.set({0, 130}, -1.0);
  OpCase c = write_case(kv::CacheLayout::V32_FP8Sparse, rows, {4}, 2, 3, "flashmla-kv-test");
  Tensor out = run(c)["k_cache"];
  const std::uint8_t* t = bytes(out) + 1 * 3 * 656 + 1 * 656;  // slot 4 = block 1, token 1
  EXPECT_EQ(t[0], 0x7E);                  // 448 / 1
  EXPECT_EQ(get_f32(t + 512), 1.0f);      // 448/448 = 1 -> 2^0
  EXPECT_EQ(get_f32(t + 516), 0x1p-8f);   // 1/448 -> 2^-8; 0.5 / 2^-8 = 128 = 0x70, -1 -> -256 = 0xF8
  EXPECT_EQ(t[128], 0x70);
  EXPECT_EQ(t[130], 0xF8);
  EXPECT_EQ(get_f32(t + 520), 0x1p-7f);   // 3/448 -> 2^-7; 3 * 128 = 384 = 0x7C
  EXPECT_EQ(t[300], 0x7C);
  EXPECT_EQ(t[528], 0xC0);                // bf16 1.5 = 0x3FC0, little-endian
  EXPECT_EQ(t[529], 0x3F);
  EXPECT_EQ(t[655], 0x3F);
  // Every other slot is untouched (0xFF).
  for (std::int64_t b = 0; b < 2 * 3 * 656; ++b) {
    if (b >= 4 * 656 && b < 5 * 656) continue;
    ASSERT_EQ(bytes(out)[b], 0xFF) << b;
  }
  // The input cache is not modified.
  EXPECT_EQ(bytes(c.inputs["k_cache"])[4 * 656], 0xFF);
}

TEST(KvCacheWrite, Model1ByteLayoutAtExactOffsetsAndPadByte) {
  Tensor rows = Tensor::empty(DType::BF16, {2, 512});
  for (int k = 0; k < 512; ++k) {
    rows.set({0, k}, k < 448 ? std::ldexp(1.0, -(k / 64)) : -2.0);  // tile t amax 2^-t
    rows.set({1, k}, 1e-6);                                          // tiny: hits the clamps
  }
  const std::int64_t bs = 5;
  OpCase c = write_case(kv::CacheLayout::MODEL1_FP8Sparse, rows, {7, 2}, 2, bs, "vllm-v4-kv");
  Tensor out = run(c)["k_cache"];
  const std::uint8_t* blk1 = bytes(out) + 3456;  // padded block bytes
  const int tok = 2;
  for (int t = 0; t < 7; ++t) {
    // vllm-v4-kv: 2^ceil(log2(2^-t / 448)) = 2^(-t-8): byte 119 - t; elements 2^-t / 2^(-t-8) = 256 = 0x78
    EXPECT_EQ(blk1[bs * 576 + tok * 8 + t], 119 - t);
    EXPECT_EQ(blk1[tok * 576 + 64 * t], 0x78);
  }
  EXPECT_EQ(blk1[bs * 576 + tok * 8 + 7], 0x00);  // pad byte
  EXPECT_EQ(blk1[tok * 576 + 448], 0x00);        // bf16 -2.0 = 0xC000
  EXPECT_EQ(blk1[tok * 576 + 449], 0xC0);
  // Row 1 in block 0 token 2: amax 1e-6 clamped at 1e-4: ceil(log2(1e-4/448)) = -22 -> byte 105.
  const std::uint8_t* blk0 = bytes(out);
  EXPECT_EQ(blk0[bs * 576 + 2 * 8 + 0], 105);
  // Neighbouring token scale bytes untouched.
  EXPECT_EQ(blk1[bs * 576 + 1 * 8 + 0], 0xFF);
  EXPECT_EQ(blk1[bs * 576 + 3 * 8 + 0], 0xFF);
}

TEST(KvCacheWrite, RecipesAgreeWithTheFormatsLibrary) {
  auto rng = test::rng_for_current_test();
  std::normal_distribution<double> g(0.0, 1.0);
  struct Combo {
    kv::ScaleRecipe mine;
    formats::Recipe theirs;
    formats::Format fmt;
  };
  for (auto [mine, theirs, fmt] : {Combo{kv::ScaleRecipe::flashmla_kv_test, formats::Recipe::flashmla_kv_test, formats::Format::e4m3fn},
                                   Combo{kv::ScaleRecipe::vllm_v4_kv, formats::Recipe::vllm_v4_kv, formats::Format::e4m3fn},
                                   Combo{kv::ScaleRecipe::vllm_v4_kv, formats::Recipe::vllm_v4_kv, formats::Format::e4m3fnuz}}) {
    for (int trial = 0; trial < 300; ++trial) {
      const double mag = std::ldexp(1.0, static_cast<int>(trial % 40) - 25);
      std::vector<float> tile(64);
      for (auto& x : tile) x = static_cast<float>(Tensor::from_f64(DType::BF16, {1}, {g(rng) * mag}).get({0}));
      if (trial % 10 == 0) tile[3] = static_cast<float>(448.0 * mag);  // amax exactly 448 * 2^k
      double amax = 0;
      for (float x : tile) amax = std::max(amax, std::fabs(static_cast<double>(x)));
      const kv::TileScale ts = kv::tile_scale(mine, amax, fmt);
      const auto q = formats::quantize_block(theirs, tile, fmt);
      ASSERT_EQ(static_cast<float>(ts.scale), q.scale.scale) << "amax " << amax;
      if (q.scale.e8m0) {
        EXPECT_EQ(ts.e8m0, *q.scale.e8m0);
      }
      // Element codes through the writer (MODEL1, one tile) vs the library's codes.
      Tensor rows = Tensor::empty(DType::F32, {1, 512});
      for (int k = 0; k < 512; ++k) rows.set({0, k}, k < 64 ? tile[k] : 0.0);
      OpCase c = write_case(kv::CacheLayout::MODEL1_FP8Sparse, rows, {0}, 1, 1,
                            mine == kv::ScaleRecipe::flashmla_kv_test ? "flashmla-kv-test" : "vllm-v4-kv");
      c.attrs["fp8_format"] = fmt == formats::Format::e4m3fn ? "e4m3fn" : "e4m3fnuz";
      Tensor out = run(c)["k_cache"];
      for (int k = 0; k < 64; ++k) ASSERT_EQ(bytes(out)[k], q.codes[k]) << "element " << k << " amax " << amax;
    }
  }
}

TEST(KvCacheWrite, NonFiniteTileGivesScaleByteFF) {
  Tensor rows = Tensor::empty(DType::BF16, {1, 512});
  for (int k = 0; k < 512; ++k) rows.set({0, k}, 0.25);
  rows.set({0, 70}, kInf);  // tile 1
  OpCase c = write_case(kv::CacheLayout::MODEL1_FP8Sparse, rows, {0}, 1, 4, "vllm-v4-kv");
  Tensor out = run(c)["k_cache"];
  EXPECT_EQ(bytes(out)[4 * 576 + 1], 0xFF);
  EXPECT_NE(bytes(out)[4 * 576 + 0], 0xFF);
  // Dequantized: tile 1 is NaN under the exact e8m0 decode, Inf-scaled under shift23.
  auto v = kv::cache_view("t", "k_cache", out, kv::CacheLayout::MODEL1_FP8Sparse);
  std::vector<double> row(512);
  kv::dequantize_slot(v, 0, {}, row.data());
  EXPECT_TRUE(std::isnan(row[64]));
  EXPECT_EQ(row[0], 0.25);
}

TEST(KvCacheWrite, NegativeSlotsAreSkippedAndLaterDuplicatesWin) {
  Tensor rows = Tensor::empty(DType::BF16, {3, 576});
  for (int k = 0; k < 576; ++k) { rows.set({0, k}, 1.0); rows.set({1, k}, 2.0); rows.set({2, k}, 4.0); }
  OpCase c = write_case(kv::CacheLayout::V32_FP8Sparse, rows, {1, -1, 1}, 1, 2, "vllm-v4-kv");
  Tensor out = run(c)["k_cache"];
  auto v = kv::cache_view("t", "k_cache", out, kv::CacheLayout::V32_FP8Sparse);
  std::vector<double> row(576);
  kv::dequantize_slot(v, 1, {}, row.data());
  EXPECT_EQ(row[0], 4.0);
  EXPECT_EQ(row[575], 4.0);
  EXPECT_EQ(bytes(out)[0], 0xFF);  // slot 0 untouched
}

TEST(KvCacheWrite, BadInputIsRejectedWithTheArgumentNamed) {
  Tensor rows = Tensor::empty(DType::BF16, {2, 512});
  rows.fill(1.0);
  const OpCase good = write_case(kv::CacheLayout::MODEL1_FP8Sparse, rows, {0, 1}, 1, 4, "vllm-v4-kv");
  auto expect_error = [&](OpCase c, const std::string& needle) {
    try {
      run(c);
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  EXPECT_NO_THROW(run(good));
  OpCase c = good;
  c.inputs["slot_mapping"] = Tensor::from_f64(DType::F32, {2}, {0, 1});
  expect_error(c, "slot_mapping");
  c = good;
  c.inputs["slot_mapping"] = Tensor::from_codes(DType::I64, {2}, {0, 4});  // 4 >= 1 * 4 slots
  expect_error(c, "slot_mapping");
  c = good;
  c.inputs["slot_mapping"] = Tensor::from_codes(DType::I64, {3}, {0, 1, 2});
  expect_error(c, "slot_mapping");
  c = good;
  c.attrs["cache_layout"] = "V32_FP8Sparse";  // 512-wide rows, 584-byte tokens
  expect_error(c, "kv");
  c = good;
  c.attrs["scale_recipe"] = "plain-fp32";
  expect_error(c, "scale_recipe");
  c = good;
  c.inputs["k_cache"] = Tensor::empty(DType::U8, {1, 4, 1, 656});
  expect_error(c, "k_cache");
  c = good;
  c.attrs.erase("scale_recipe");
  expect_error(c, "scale_recipe");
}

TEST(KvCacheWrite, GeneratorDefaultShapesRun) {
  auto rng = test::rng_for_current_test();
  const OpDescriptor& d = Registry::instance().get("kv_cache_write");
  for (const Json& s : d.default_shapes) {
    OpCase c = d.generate(rng, s);
    Tensor before = c.inputs["k_cache"];
    Tensor out = run_reference("kv_cache_write", c)["k_cache"];
    EXPECT_EQ(out.shape(), before.shape());
    EXPECT_EQ(out.strides(), before.strides());
    std::size_t changed = 0;
    for (std::size_t b = 0; b < out.storage_bytes(); ++b) changed += bytes(out)[b] != bytes(before)[b];
    EXPECT_GT(changed, 0u) << s.dump();
  }
}
