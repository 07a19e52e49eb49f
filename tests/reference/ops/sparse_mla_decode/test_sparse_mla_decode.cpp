// Tests of the sparse_mla_decode reference (ops.md §3): hand-made cache bytes at exact offsets in both
// layouts, decode over a cache vs sparse prefill on the dequantized rows (independent path), extra cache
// in one softmax, NaN in unreferenced slots, lonely queries, the transposed lse view, dequant variants
// (bf16 product, e8m0 shift23), bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "reference/ops/common/kv_cache_gen.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor i32(Shape s, std::vector<std::int64_t> v) {
  Tensor t = Tensor::empty(DType::I32, std::move(s));
  for (std::size_t i = 0; i < v.size(); ++i) t.set_code_linear(static_cast<std::int64_t>(i), static_cast<std::uint32_t>(v[i]));
  return t;
}

std::uint8_t* bytes(Tensor& t) { return reinterpret_cast<std::uint8_t*>(t.data()); }

void put_f32(std::uint8_t* p, float v) { std::memcpy(p, &v, 4); }
void put_bf16(std::uint8_t* p, std::uint16_t c) { p[0] = c & 0xFF; p[1] = c >> 8; }

// Decode case -> the equivalent prefill case over the dequantized rows (main rows then extra rows).
OpCase as_prefill(const OpCase& c, kv::CacheLayout l) {
  const Tensor& q = c.inputs.at("q");
  const std::int64_t b = q.size(0), s_q = q.size(1), h_q = q.size(2), d = q.size(3);
  Tensor main = kv::dequantize_cache("test", c.inputs.at("k_cache"), l, {});
  const bool extra = c.inputs.count("extra_k_cache");
  Tensor ext = extra ? kv::dequantize_cache("test", c.inputs.at("extra_k_cache"), l, {}) : Tensor();
  const std::int64_t n_main = main.size(0), n_all = n_main + (extra ? ext.size(0) : 0);
  Tensor kv = Tensor::empty(DType::BF16, {n_all, 1, d});
  for (std::int64_t r = 0; r < n_all; ++r)
    for (std::int64_t k = 0; k < d; ++k)
      kv.set({r, 0, k}, r < n_main ? main.get({r, k}) : ext.get({r - n_main, k}));  // exact: fp8 x 2^k fits bf16
  const Tensor& idx = c.inputs.at("indices");
  const std::int64_t topk = idx.size(2), etopk = extra ? c.inputs.at("extra_indices_in_kvcache").size(2) : 0;
  Tensor pidx = Tensor::empty(DType::I32, {b * s_q, 1, topk + etopk});
  for (std::int64_t i = 0; i < b; ++i)
    for (std::int64_t s = 0; s < s_q; ++s) {
      const std::int64_t len = c.inputs.count("topk_length") ? static_cast<std::int64_t>(c.inputs.at("topk_length").get({i})) : topk;
      for (std::int64_t j = 0; j < topk; ++j) {
        const auto v = static_cast<std::int32_t>(idx.code({i, s, j}));
        pidx.set_code({i * s_q + s, 0, j}, static_cast<std::uint32_t>(j < len ? v : -1));
      }
      if (extra) {
        const Tensor& ei = c.inputs.at("extra_indices_in_kvcache");
        const std::int64_t el = c.inputs.count("extra_topk_length") ? static_cast<std::int64_t>(c.inputs.at("extra_topk_length").get({i})) : etopk;
        for (std::int64_t j = 0; j < etopk; ++j) {
          const auto v = static_cast<std::int32_t>(ei.code({i, s, j}));
          pidx.set_code({i * s_q + s, 0, topk + j}, static_cast<std::uint32_t>(j < el && v != -1 ? v + n_main : -1));
        }
      }
    }
  OpCase p;
  p.inputs["q"] = q.contiguous().reshape({b * s_q, h_q, d});
  p.inputs["kv"] = kv;
  p.inputs["indices"] = pidx;
  if (c.inputs.count("attn_sink")) p.inputs["attn_sink"] = c.inputs.at("attn_sink");
  p.attrs = {{"sm_scale", c.attrs.at("softmax_scale")}, {"d_v", 512}};
  return p;
}
}  // namespace

TEST(SparseMlaDecode, V32BytesAtExactOffsetsDequantize) {
  // Block size 3, 2 blocks; slot 4 = block 1, token 1 at 656*3 + 656.
  Tensor cache = kv::alloc_cache(kv::CacheLayout::V32_FP8Sparse, 2, 3);
  EXPECT_EQ(cache.stride(0), 3 * 656);
  std::uint8_t* t = bytes(cache) + 3 * 656 + 1 * 656;
  for (int e = 0; e < 512; ++e) t[e] = 0x38;  // e4m3fn 1.0
  t[129] = 0xC4;                               // e4m3fn -3.0 in tile 1
  const float sc[4] = {0.5f, 2.0f, 0.25f, 3.0f};
  for (int k = 0; k < 4; ++k) put_f32(t + 512 + 4 * k, sc[k]);
  for (int k = 0; k < 64; ++k) put_bf16(t + 528 + 2 * k, 0x3FC0);  // bf16 1.5
  kv::CacheView v = kv::cache_view("test", "k_cache", cache, kv::CacheLayout::V32_FP8Sparse);
  std::vector<double> row(576);
  kv::dequantize_slot(v, 4, {}, row.data());
  EXPECT_EQ(row[0], 0.5);
  EXPECT_EQ(row[127], 0.5);
  EXPECT_EQ(row[128], 2.0);
  EXPECT_EQ(row[129], -6.0);
  EXPECT_EQ(row[300], 0.25);
  EXPECT_EQ(row[511], 3.0);
  EXPECT_EQ(row[512], 1.5);
  EXPECT_EQ(row[575], 1.5);
  kv::dequantize_slot(v, 0, {}, row.data());  // untouched slot: 0xFF bytes are NaN
  EXPECT_TRUE(std::isnan(row[0]));
}

TEST(SparseMlaDecode, Model1BlockedBytesAtExactOffsetsDequantize) {
  // Block size 5: token data 5*576 = 2880, scales at 2880 + t*8, block padded to a multiple of 576.
  Tensor cache = kv::alloc_cache(kv::CacheLayout::MODEL1_FP8Sparse, 2, 5);
  EXPECT_EQ(cache.stride(0), 3456);  // 5*584 = 2920 -> 6*576
  EXPECT_EQ(cache.stride(1), 584);
  std::uint8_t* blk = bytes(cache) + 3456;
  const int tok = 2;  // slot 7
  for (int e = 0; e < 448; ++e) blk[tok * 576 + e] = 0x40;  // e4m3fn 2.0
  for (int k = 0; k < 64; ++k) put_bf16(blk + tok * 576 + 448 + 2 * k, 0xBF80);  // -1.0
  for (int k = 0; k < 7; ++k) blk[5 * 576 + tok * 8 + k] = static_cast<std::uint8_t>(127 - k);  // 2^-k
  blk[5 * 576 + tok * 8 + 7] = 0;
  kv::CacheView v = kv::cache_view("test", "k_cache", cache, kv::CacheLayout::MODEL1_FP8Sparse);
  std::vector<double> row(512);
  kv::dequantize_slot(v, 7, {}, row.data());
  for (int k = 0; k < 7; ++k) {
    EXPECT_EQ(row[64 * k], 2.0 * std::ldexp(1.0, -k));
    EXPECT_EQ(row[64 * k + 63], 2.0 * std::ldexp(1.0, -k));
  }
  EXPECT_EQ(row[448], -1.0);
  EXPECT_EQ(row[511], -1.0);
  // e8m0 special bytes: 0x00 exact 2^-127 vs shift23 zero; 0xFF NaN vs shift23 Inf (known-bugs 13).
  blk[5 * 576 + tok * 8 + 0] = 0x00;
  blk[5 * 576 + tok * 8 + 1] = 0xFF;
  kv::dequantize_slot(v, 7, {}, row.data());
  EXPECT_EQ(row[0], 2.0 * std::ldexp(1.0, -127));
  EXPECT_TRUE(std::isnan(row[64]));
  kv::DequantOptions s23;
  s23.e8m0_shift23 = true;
  kv::dequantize_slot(v, 7, s23, row.data());
  EXPECT_EQ(row[0], 0.0);
  EXPECT_EQ(row[64], kInf);
}

TEST(SparseMlaDecode, MatchesSparsePrefillOnDequantizedRowsBothLayouts) {
  auto rng = test::rng_for_current_test();
  const OpDescriptor& d = Registry::instance().get("sparse_mla_decode");
  const Json shapes[] = {
      {{"b", 2}, {"s_q", 2}, {"h_q", 4}, {"d_qk", 576}, {"block_size", 53}, {"num_blocks", 3}, {"topk", 64}},
      {{"b", 3}, {"s_q", 1}, {"h_q", 4}, {"d_qk", 512}, {"block_size", 61}, {"num_blocks", 2}, {"topk", 64},
       {"extra_topk", 32}, {"extra_num_blocks", 1}},
  };
  for (const Json& s : shapes) {
    OpCase c = d.generate(rng, s);
    const auto l = *kv::parse_cache_layout(c.attrs["cache_layout"]);
    auto o = run_reference("sparse_mla_decode", c);
    auto p = run_reference("sparse_mla_prefill", as_prefill(c, l));
    const std::int64_t b = s["b"], s_q = s["s_q"], h_q = s["h_q"];
    EXPECT_EQ(o["out"].shape(), (Shape{b, s_q, h_q, 512}));
    EXPECT_EQ(o["lse"].shape(), (Shape{b, h_q, s_q}));
    std::size_t nonzero = 0;
    for (std::int64_t i = 0; i < b; ++i)
      for (std::int64_t q = 0; q < s_q; ++q)
        for (std::int64_t h = 0; h < h_q; ++h) {
          const double pl = p["lse"].get({i * s_q + q, h}), dl = o["lse"].get({i, h, q});
          EXPECT_TRUE(pl == dl || std::fabs(pl - dl) <= 1e-6 * std::fabs(pl)) << pl << " vs " << dl;
          for (std::int64_t k = 0; k < 512; ++k) {
            const double a = o["out"].get({i, q, h, k}), r = p["out"].get({i * s_q + q, h, k});
            EXPECT_FALSE(std::isnan(a));
            EXPECT_LE(std::fabs(a - r), std::fabs(r) * 0x1p-8) << i << q << h << k;
            nonzero += a != 0;
          }
        }
    EXPECT_GT(nonzero, 0u);
  }
}

TEST(SparseMlaDecode, LonelyQueriesAndTransposedLseView) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("sparse_mla_decode").generate(
      rng, {{"b", 2}, {"s_q", 3}, {"h_q", 4}, {"d_qk", 512}, {"block_size", 64}, {"num_blocks", 2}, {"topk", 16},
            {"varlen", false}});
  c.inputs["attn_sink"] = Tensor::from_f64(DType::F32, {4}, {0.1, -kInf, kInf, 2.0});
  for (std::int64_t j = 0; j < 16; ++j) c.inputs["indices"].set_code({1, 2, j}, 0xFFFFFFFFu);  // all -1
  c.inputs["topk_length"] = i32({2}, {0, 16});  // batch 0: topk_length 0
  auto o = run_reference("sparse_mla_decode", c);
  const Tensor& lse = o["lse"];
  EXPECT_EQ(lse.strides(), (Shape{12, 1, 4}));  // [b, h_q, s_q] view of [b, s_q, h_q] storage
  for (std::int64_t h = 0; h < 4; ++h) {
    for (std::int64_t s = 0; s < 3; ++s) EXPECT_EQ(lse.get({0, h, s}), kInf);
    EXPECT_EQ(lse.get({1, h, 2}), kInf);
    for (std::int64_t k = 0; k < 512; ++k) {
      EXPECT_EQ(o["out"].get({0, 1, h, k}), 0.0);
      EXPECT_EQ(o["out"].get({1, 2, h, k}), 0.0);
    }
    EXPECT_TRUE(std::isfinite(lse.get({1, h, 0})));
  }
}

TEST(SparseMlaDecode, NanInUnreferencedSlotsNeverReachesTheResult) {
  auto rng = test::rng_for_current_test();
  // The generator leaves every unreferenced slot as 0xFF bytes (NaN data, NaN scales).
  OpCase c = Registry::instance().get("sparse_mla_decode").generate(
      rng, {{"b", 2}, {"s_q", 1}, {"h_q", 2}, {"d_qk", 576}, {"block_size", 64}, {"num_blocks", 4}, {"topk", 32}});
  auto v = kv::cache_view("t", "k_cache", c.inputs["k_cache"], kv::CacheLayout::V32_FP8Sparse);
  std::vector<double> row(576);
  std::size_t nan_slots = 0;
  for (std::int64_t s = 0; s < v.num_slots(); ++s) { kv::dequantize_slot(v, s, {}, row.data()); nan_slots += std::isnan(row[0]); }
  EXPECT_GT(nan_slots, 100u);
  auto o = run_reference("sparse_mla_decode", c);
  for (double x : o["out"].to_f64()) ASSERT_FALSE(std::isnan(x));
  for (double x : o["lse"].to_f64()) ASSERT_FALSE(std::isnan(x));
}

TEST(SparseMlaDecode, Bf16ProductDequantRoundsNonPowerOfTwoScales) {
  // V3.2 fp32 scale 0.3 (not a power of two): the kernel rounds it to bf16 first (ops.md §3.1).
  Tensor cache = kv::alloc_cache(kv::CacheLayout::V32_FP8Sparse, 1, 1);
  std::uint8_t* t = bytes(cache);
  for (int e = 0; e < 512; ++e) t[e] = 0x3B;  // e4m3fn 1.375
  for (int k = 0; k < 4; ++k) put_f32(t + 512 + 4 * k, 0.3f);
  for (int k = 0; k < 64; ++k) put_bf16(t + 528 + 2 * k, 0);
  auto v = kv::cache_view("t", "k_cache", cache, kv::CacheLayout::V32_FP8Sparse);
  std::vector<double> ex(576), bf(576), f32(576);
  kv::dequantize_slot(v, 0, {}, ex.data());
  kv::DequantOptions o;
  o.mode = kv::KvDequant::bf16_product;
  kv::dequantize_slot(v, 0, o, bf.data());
  o.mode = kv::KvDequant::fp32_product;
  kv::dequantize_slot(v, 0, o, f32.data());
  EXPECT_EQ(ex[0], 1.375 * static_cast<double>(0.3f));
  EXPECT_EQ(f32[0], static_cast<double>(1.375f * 0.3f));
  // bf16(0.3) = 0x3E9A = 0.30078125; 1.375 * 0.30078125 = 0.41357421875 -> bf16 0.4140625 (0x3ED4)
  EXPECT_EQ(bf[0], 0.4140625);
  EXPECT_NE(bf[0], ex[0]);
}

TEST(SparseMlaDecode, BadInputIsRejectedWithTheArgumentNamed) {
  auto rng = test::rng_for_current_test();
  const OpCase good = Registry::instance().get("sparse_mla_decode").generate(
      rng, {{"b", 1}, {"s_q", 1}, {"h_q", 2}, {"d_qk", 512}, {"block_size", 4}, {"num_blocks", 2}, {"topk", 4},
            {"varlen", false}});
  auto expect_error = [&](OpCase c, const std::string& needle) {
    try {
      run_reference("sparse_mla_decode", c);
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  EXPECT_NO_THROW(run_reference("sparse_mla_decode", good));
  OpCase c = good;
  c.inputs["k_cache"] = kv::alloc_cache(kv::CacheLayout::V32_FP8Sparse, 2, 4);  // 656-byte tokens, MODEL1 layout
  expect_error(c, "k_cache");
  c = good;
  c.attrs["cache_layout"] = "V32_FP8Sparse";  // q is 512 wide
  expect_error(c, "'q'");
  c = good;
  c.inputs["indices"] = good.inputs.at("indices").clone();
  c.inputs["indices"].set_code({0, 0, 1}, static_cast<std::uint32_t>(-2));
  expect_error(c, "indices");
  c = good;
  c.inputs["indices"] = i32({1, 1, 4}, {0, 1, 2, 8});  // slot 8 >= 2 * 4
  expect_error(c, "indices");
  c = good;
  c.inputs["indices"] = Tensor::empty(DType::I64, {1, 1, 4});
  expect_error(c, "indices");
  c = good;
  c.inputs["k_cache"] = c.inputs["k_cache"].slice(0, 0, 1).as_strided({2, 4, 1, 584}, {584 * 4 - 1, 584, 584, 1}, 0);
  expect_error(c, "k_cache");
  c = good;
  c.inputs["topk_length"] = i32({1}, {5});
  expect_error(c, "topk_length");
  c = good;
  c.inputs["extra_topk_length"] = i32({1}, {1});
  expect_error(c, "extra_topk_length");
  c = good;
  c.attrs["head_dim_v"] = 600;
  expect_error(c, "head_dim_v");
  c = good;
  c.attrs.erase("cache_layout");
  expect_error(c, "cache_layout");
}

TEST(SparseMlaDecode, Model1DequantCoversEveryScaleByteOcpAndFnuz) {
  // known-bugs 14: scale bytes 0x01..0xFE, every fp8 code, both fp8 flavours; the bf16 product must equal
  // bf16(fp8_decode * 2^(b-127)) bitwise and the exact mode the float64 product.
  const std::int64_t bs = 4, nb = 64;  // 256 tokens: token t uses scale byte 1 + t % 254 in tile t % 7
  Tensor cache = kv::alloc_cache(kv::CacheLayout::MODEL1_FP8Sparse, nb, bs);
  std::uint8_t* base = bytes(cache);
  for (std::int64_t s = 0; s < nb * bs; ++s) {
    std::uint8_t* blk = base + (s / bs) * cache.stride(0);
    const std::int64_t t = s % bs;
    for (int e = 0; e < 448; ++e) blk[t * 576 + e] = static_cast<std::uint8_t>((e + s) & 0xFF);
    for (int k = 0; k < 64; ++k) put_bf16(blk + t * 576 + 448 + 2 * k, 0x3F80);
    for (int k = 0; k < 7; ++k) blk[bs * 576 + t * 8 + k] = static_cast<std::uint8_t>(1 + (s * 7 + k) % 254);
    blk[bs * 576 + t * 8 + 7] = 0;
  }
  auto v = kv::cache_view("t", "k_cache", cache, kv::CacheLayout::MODEL1_FP8Sparse);
  std::vector<double> ex(512), bf(512);
  for (auto fmt : {formats::Format::e4m3fn, formats::Format::e4m3fnuz}) {
    kv::DequantOptions oe, ob;
    oe.fp8 = ob.fp8 = fmt;
    ob.mode = kv::KvDequant::bf16_product;
    for (std::int64_t s = 0; s < nb * bs; ++s) {
      kv::dequantize_slot(v, s, oe, ex.data());
      kv::dequantize_slot(v, s, ob, bf.data());
      for (int e = 0; e < 448; ++e) {
        const int byte = 1 + static_cast<int>((s * 7 + e / 64) % 254);
        const double want = formats::decode(fmt, static_cast<std::uint32_t>((e + s) & 0xFF)) * std::ldexp(1.0, byte - 127);
        const double want_bf16 = Tensor::from_f64(DType::BF16, {1}, {want}).get({0});
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(ex[e]) && std::isnan(bf[e]));
          continue;
        }
        ASSERT_EQ(ex[e], want) << s << " " << e;
        ASSERT_EQ(bf[e], want_bf16) << s << " " << e;
      }
    }
  }
}
