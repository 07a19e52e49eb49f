// Descriptor of op 'kv_cache_write' (quantize-and-insert into an FP8 sparse KV cache, ops.md §3.1,
// formats.md §5): schema, layout / scale-recipe attributes, reference and generator.
#include <algorithm>
#include <numeric>

#include "reference/ops/common/attn_gen.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"
#include "reference/ops/kv_cache_write/kv_cache_write.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace kv_cache_write_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {

namespace {

std::int64_t shape_int(const Json& s, const char* k, std::int64_t dflt) {
  return s.contains(k) ? s.at(k).get<std::int64_t>() : dflt;
}

// Shape keys: n_tokens, d_qk (576 -> V32, 512 -> MODEL1), block_size, num_blocks; optional recipe
// ("vllm-v4-kv"), slot_dtype ("I64"). Some tokens are padding (slot -1); the cache starts half filled
// with other rows and half NaN bytes.
OpCase generate(std::mt19937_64& rng, const Json& s) {
  const std::int64_t n = shape_int(s, "n_tokens", 16);
  const std::int64_t d_qk = shape_int(s, "d_qk", 512) == 576 ? 576 : 512;  // the layouts fix d_qk
  const std::int64_t bs = shape_int(s, "block_size", 64), nb = shape_int(s, "num_blocks", 2);
  const kv::CacheLayout l = d_qk == 576 ? kv::CacheLayout::V32_FP8Sparse : kv::CacheLayout::MODEL1_FP8Sparse;
  OpCase c;
  Tensor rows = Tensor::empty(DType::BF16, {n, d_qk});
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const double mag = u(rng) < 0.2 ? 1e-6 : u(rng) < 0.2 ? 300.0 : 1.0;  // tiny tiles hit the 1e-4 clamps
    for (std::int64_t d = 0; d < d_qk; ++d) rows.set({i, d}, attn::gen_value(rng) * mag);
  }
  std::vector<std::int64_t> perm(static_cast<std::size_t>(nb * bs));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  const std::string sdt = s.contains("slot_dtype") ? s.at("slot_dtype").get<std::string>() : "I64";
  Tensor slots = Tensor::empty(sdt == "I32" ? DType::I32 : DType::I64, {n});
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = (u(rng) < 0.1 || i >= nb * bs) ? -1 : perm[i];
    slots.set_code({i}, static_cast<std::uint64_t>(v) & (sdt == "I32" ? 0xFFFFFFFFull : ~0ull));
  }
  Tensor cache = kv::alloc_cache(l, nb, bs);
  std::vector<std::int64_t> pre(perm.begin() + std::min<std::int64_t>(n, nb * bs), perm.end());
  pre.resize(pre.size() / 2);
  kv::fill_slots(rng, cache, l, pre, {});
  c.inputs["kv"] = rows;
  c.inputs["slot_mapping"] = slots;
  c.inputs["k_cache"] = cache;
  c.attrs["cache_layout"] = kv::cache_layout_name(l);
  c.attrs["scale_recipe"] = s.contains("recipe") ? s.at("recipe").get<std::string>() : "vllm-v4-kv";
  return c;
}

}  // namespace

void register_kv_cache_write(Registry& r) {
  OpDescriptor d;
  d.name = "kv_cache_write";
  d.summary = "Quantize bf16 kv rows and insert them into an FP8 sparse KV cache (V3.2 or V4 MODEL1 layout)";
  d.contract = "ops.md §3.1, formats.md §5";
  const std::vector<DType> bytes = {DType::U8, DType::F8_E4M3FN, DType::F8_E4M3FNUZ};
  d.inputs = {
      {"kv", {DType::BF16, DType::F32}, "[n_tokens, d_qk]", false, "d_qk 576 (V32) or 512 (MODEL1)"},
      {"slot_mapping", {DType::I64, DType::I32}, "[n_tokens]", false, "slot = block * block_size + offset; < 0 skip"},
      {"k_cache", bytes, "[num_blocks, block_size, 1, bytes_per_token]", false, "updated copy is the output"},
  };
  d.outputs = {
      {"k_cache", bytes, "[num_blocks, block_size, 1, bytes_per_token]", false, "input bytes with the rows written"},
  };
  d.attrs = {
      {"cache_layout", nullptr, "V32_FP8Sparse or MODEL1_FP8Sparse", {"V32_FP8Sparse", "MODEL1_FP8Sparse"}, false},
      {"scale_recipe", nullptr, "formats.md §5 recipe", {"flashmla-kv-test", "vllm-v4-kv", "plain-fp32"}, false},
      {"fp8_format", "e4m3fn", "fp8 flavour (vLLM's SWA cache is FNUZ on gfx942; fp8_max 224 there)",
       {"e4m3fn", "e4m3fnuz"}},
  };
  d.reference = kv_cache_write_reference;
  d.generate = generate;
  set_shape_fields(d.name, {"n_tokens", "d_qk", "block_size", "num_blocks", "slot_dtype", "recipe"});
  d.fuzz = ops::kv_cache_write_fuzz_space();
  d.default_shapes = {
      Json{{"n_tokens", 12}, {"d_qk", 576}, {"block_size", 7}, {"num_blocks", 3}, {"recipe", "flashmla-kv-test"}},
      Json{{"n_tokens", 12}, {"d_qk", 512}, {"block_size", 5}, {"num_blocks", 3}},
      Json{{"n_tokens", 8}, {"d_qk", 512}, {"block_size", 64}, {"num_blocks", 1}, {"recipe", "flashmla-kv-test"},
           {"slot_dtype", "I32"}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["k_cache"] = {"exact", Json::object(),
      "a cache write is quantize-and-store with a named rounding recipe: every byte (fp8 code, scale byte, padding) is "
      "determined, so any difference is a bug; NaN-class rule only"};
  r.add(std::move(d));
}

}  // namespace dsv4
