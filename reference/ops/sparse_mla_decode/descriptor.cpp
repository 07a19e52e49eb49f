// Descriptor of op 'sparse_mla_decode' (ops.md §3): argument schema, cache layout and dequant variants,
// the float64 reference and a generator after FlashMLA's decode tests (NaN in unreferenced slots).
#include <algorithm>
#include <cmath>
#include <set>

#include "reference/ops/common/attn_gen.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"
#include "reference/ops/sparse_mla_decode/sparse_mla_decode.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace sparse_mla_decode_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {

namespace {

std::int64_t shape_int(const Json& s, const char* k, std::int64_t dflt) {
  return s.contains(k) ? s.at(k).get<std::int64_t>() : dflt;
}

// Indices [b, s_q, topk] over n_slots slots (-1 invalid, some fully invalid queries) and the set of
// every slot they mention.
Tensor gen_indices(std::mt19937_64& rng, std::int64_t b, std::int64_t s_q, std::int64_t topk, std::int64_t n_slots,
                   std::set<std::int64_t>& used) {
  Tensor idx = Tensor::empty(DType::I32, {b, s_q, topk});
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t i = 0; i < b; ++i)
    for (std::int64_t s = 0; s < s_q; ++s) {
      std::int64_t n_valid = std::min(topk, n_slots);
      const double r = u(rng);
      if (r < 0.05) n_valid = 0;
      else if (r < 0.5) n_valid = std::uniform_int_distribution<std::int64_t>(0, n_valid)(rng);
      auto row = attn::gen_index_row(rng, n_slots, topk, n_valid, {-1});
      if (u(rng) < 0.5) std::shuffle(row.begin(), row.end(), rng);
      for (std::int64_t j = 0; j < topk; ++j) {
        idx.set_code({i, s, j}, static_cast<std::uint32_t>(row[j]));
        if (row[j] >= 0) used.insert(row[j]);
      }
    }
  return idx;
}

Tensor gen_lengths(std::mt19937_64& rng, std::int64_t b, std::int64_t topk) {
  Tensor tl = Tensor::empty(DType::I32, {b});
  for (std::int64_t i = 0; i < b; ++i)
    tl.set_code({i}, static_cast<std::uint32_t>(std::uniform_int_distribution<std::int64_t>(0, topk)(rng)));
  return tl;
}

// Shape keys: b, s_q, h_q, d_qk (576 -> V32_FP8Sparse, 512 -> MODEL1_FP8Sparse), block_size,
// num_blocks, topk; optional extra_topk (0), extra_num_blocks, sink (true), varlen (true),
// pad (q head padding, 1). softmax_scale = d_qk^-0.55 as FlashMLA's decode tests.
OpCase generate(std::mt19937_64& rng, const Json& s) {
  const std::int64_t b = shape_int(s, "b", 2), s_q = shape_int(s, "s_q", 1), h_q = shape_int(s, "h_q", 64);
  const std::int64_t d_qk = shape_int(s, "d_qk", 512) == 576 ? 576 : 512;  // the layouts fix d_qk
  const std::int64_t bs = shape_int(s, "block_size", 64);
  const std::int64_t nb = shape_int(s, "num_blocks", 4), topk = shape_int(s, "topk", 128);
  const std::int64_t etopk = shape_int(s, "extra_topk", 0), enb = shape_int(s, "extra_num_blocks", nb);
  const kv::CacheLayout l = d_qk == 576 ? kv::CacheLayout::V32_FP8Sparse : kv::CacheLayout::MODEL1_FP8Sparse;
  OpCase c;
  c.inputs["q"] = attn::gen_bf16(rng, {b, s_q, h_q, d_qk}, shape_int(s, "pad", 1));
  std::set<std::int64_t> used;
  c.inputs["indices"] = gen_indices(rng, b, s_q, topk, nb * bs, used);
  Tensor cache = kv::alloc_cache(l, nb, bs);
  kv::fill_slots(rng, cache, l, {used.begin(), used.end()}, {});
  c.inputs["k_cache"] = cache;
  const bool varlen = !s.contains("varlen") || s.at("varlen").get<bool>();
  if (varlen) c.inputs["topk_length"] = gen_lengths(rng, b, topk);
  if (etopk > 0) {
    std::set<std::int64_t> eused;
    c.inputs["extra_indices_in_kvcache"] = gen_indices(rng, b, s_q, etopk, enb * bs, eused);
    Tensor ecache = kv::alloc_cache(l, enb, bs);
    kv::fill_slots(rng, ecache, l, {eused.begin(), eused.end()}, {});
    c.inputs["extra_k_cache"] = ecache;
    if (varlen) c.inputs["extra_topk_length"] = gen_lengths(rng, b, etopk);
  }
  if (!s.contains("sink") || s.at("sink").get<bool>()) c.inputs["attn_sink"] = attn::gen_sink(rng, h_q);
  c.attrs["cache_layout"] = kv::cache_layout_name(l);
  c.attrs["softmax_scale"] = std::pow(static_cast<double>(d_qk), -0.55);
  c.attrs["head_dim_v"] = 512;
  return c;
}

}  // namespace

void register_sparse_mla_decode(Registry& r) {
  OpDescriptor d;
  d.name = "sparse_mla_decode";
  d.summary = "Sparse MLA decode over an FP8 KV cache (V3.2 656 B/token or V4 MODEL1 584 B/token), optional extra cache";
  d.contract = "ops.md §3";
  const std::vector<DType> bytes = {DType::U8, DType::F8_E4M3FN, DType::F8_E4M3FNUZ};
  d.inputs = {
      {"q", {DType::BF16}, "[b, s_q, h_q, d_qk]", false, "last dim contiguous"},
      {"k_cache", bytes, "[num_blocks, page_block_size, 1, bytes_per_token]", false, "stride(1) == bytes_per_token"},
      {"indices", {DType::I32}, "[b, s_q, topk]", false, "slot = block_id * page_block_size + offset; -1 invalid"},
      {"topk_length", {DType::I32}, "[b]", true, "per batch"},
      {"attn_sink", {DType::F32}, "[h_q]", true, "folds into out only"},
      {"extra_k_cache", bytes, "[extra_num_blocks, page_block_size, 1, bytes_per_token]", true, "same layout"},
      {"extra_indices_in_kvcache", {DType::I32}, "[b, s_q, extra_topk]", true, "slots of extra_k_cache"},
      {"extra_topk_length", {DType::I32}, "[b]", true, ""},
  };
  d.outputs = {
      {"out", {DType::BF16}, "[b, s_q, h_q, head_dim_v]", false, "lonely queries 0"},
      {"lse", {DType::F32}, "[b, h_q, s_q]", false,
       "natural log, sink-free; transpose(1,2) view of [b, s_q, h_q]; lonely queries +inf", true},
  };
  d.attrs = {
      {"softmax_scale", nullptr, "softmax scale; default d_qk^-0.5 (FlashMLA)", {}, true},
      {"head_dim_v", 512, "value width", {}, false},
      {"cache_layout", nullptr, "V32_FP8Sparse (d_qk 576) or MODEL1_FP8Sparse (d_qk 512)",
       {"V32_FP8Sparse", "MODEL1_FP8Sparse"}, false},
      {"kv_dequant", "exact",
       "exact: float64 product (default); fp32_product / bf16_product: the kernels' rounded dequant",
       {"exact", "fp32_product", "bf16_product"}},
      {"fp8_format", "e4m3fn", "fp8 flavour of the cache bytes (vLLM's SWA cache is FNUZ on gfx942)",
       {"e4m3fn", "e4m3fnuz"}},
      {"e8m0_decode", "exact", "MODEL1 scale bytes: exact (0x00 = 2^-127, 0xFF NaN) or shift23 (known-bugs 13)",
       {"exact", "shift23"}},
      {"p_rounding", "none", "none: pure float64; bf16: round exp(P - max) to bf16 before PV", {"none", "bf16"}},
  };
  d.reference = sparse_mla_decode_reference;
  d.generate = generate;
  set_shape_fields(d.name, {"b", "s_q", "h_q", "d_qk", "block_size", "num_blocks", "topk", "extra_topk", "extra_num_blocks", "pad", "sink", "varlen"});
  d.fuzz = ops::sparse_mla_decode_fuzz_space();
  d.default_shapes = {
      Json{{"b", 2}, {"s_q", 1}, {"h_q", 4}, {"d_qk", 576}, {"block_size", 61}, {"num_blocks", 3}, {"topk", 64}},
      Json{{"b", 2}, {"s_q", 2}, {"h_q", 8}, {"d_qk", 512}, {"block_size", 64}, {"num_blocks", 3}, {"topk", 64},
           {"extra_topk", 32}, {"extra_num_blocks", 2}},
      Json{{"b", 1}, {"s_q", 3}, {"h_q", 2}, {"d_qk", 512}, {"block_size", 2}, {"num_blocks", 40}, {"topk", 64},
           {"varlen", false}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["out"] = {"cosine", {{"max_diff", 5e-6}, {"abs", 1e-3}, {"rel", 2.01 / 128}},
      "FlashMLA test_flash_mla_sparse_decoding vs a reference on the dequantized cache (ops.md §3.3): abs 1e-3, "
      "rel 2.01/128, cos 5e-6"};
  d.oracle["lse"] = {"cosine", {{"abs", 1e-6}, {"rel", 8.01 / 65536}},
      "FlashMLA decode lse: abs 1e-6, rel 8.01/65536 (split-K combine adds a few fp32 roundings); +inf for lonely rows"};
  r.add(std::move(d));
}

}  // namespace dsv4
