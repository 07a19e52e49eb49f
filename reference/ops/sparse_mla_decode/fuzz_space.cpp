// The fuzz space of sparse_mla_decode (ops.md §3): shapes on FlashMLA's limits and the decode test block sizes.
// Specials: -1 indices (the only invalid kind), topk_length 0, E8M0 extremes 0x00/0xFE in MODEL1 cache scales
// (over zeroed tiles); unreferenced cache slots already hold NaN bytes from the op's generator.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

namespace {

// Sets -1 on some entries, whole rows of -1, and topk_length 0 for some batches (decode: only -1 is invalid).
void decode_index_specials(Tensor& idx, Tensor* tl, std::mt19937_64& rng) {
  for (std::int64_t b = 0; b < idx.size(0); ++b) {
    if (tl) tl->set_code({b}, static_cast<std::uint32_t>(pick_int(rng, {0, idx.size(2), uniform(rng, 0, idx.size(2))})));
    for (std::int64_t s = 0; s < idx.size(1); ++s) {
      const bool all = coin(rng, 0.2);
      for (std::int64_t j = 0; j < idx.size(2); ++j)
        if (all || coin(rng, 0.25)) idx.set_code({b, s, j}, 0xFFFFFFFFu);
    }
  }
}

// MODEL1 caches: for some referenced slots, zero one 64-wide tile's fp8 codes and give it the E8M0 scale
// byte 0xFE (2^127) or 0x00 (2^-127): the dequantized tile is exactly 0 either way; a mis-decode is not.
void model1_e8m0_extremes(Tensor& cache, const Tensor& idx, std::mt19937_64& rng) {
  const std::int64_t bs = cache.size(1);
  const std::int64_t slots = cache.size(0) * bs;
  std::uint8_t* base = kv::cache_base(cache);
  const std::int64_t block_bytes = cache.stride(0);
  for (std::int64_t i = 0; i < idx.numel(); ++i) {
    const std::int64_t v = static_cast<std::int32_t>(idx.code_linear(i));
    if (v < 0 || v >= slots || !coin(rng, 0.3)) continue;
    const std::int64_t blk = v / bs, t = v % bs, tile = uniform(rng, 0, 6);
    std::uint8_t* blockp = base + blk * block_bytes;
    std::fill_n(blockp + t * 576 + tile * 64, 64, std::uint8_t{0});
    blockp[bs * 576 + t * 8 + tile] = coin(rng) ? 0xFE : 0x00;
  }
}

}  // namespace

FuzzSpace sparse_mla_decode_fuzz_space() {
  FuzzSpace g;
  g.value_inputs = {"q"};
  g.scale_inputs = {"q"};
  g.deterministic = false;
  g.determinism_note = "ops.md §3 states no bitwise-rerun requirement (split-KV combine)";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    const std::int64_t d_qk = pick_int(rng, {512, 576});
    Json s{{"b", test ? uniform(rng, 1, 2) : uniform(rng, 1, 4)},
           {"s_q", test ? uniform(rng, 1, 2) : pick_int(rng, {1, 2, 4})},
           {"h_q", test ? uniform(rng, 1, 3) : pick_int(rng, {1, 16, 64, 128})},
           {"d_qk", d_qk},
           {"block_size", test ? pick_int(rng, {2, 53, 61, 64}) : pick_int(rng, {2, 53, 61, 64, 69, 576})},
           {"num_blocks", test ? uniform(rng, 1, 3) : uniform(rng, 1, 12)},
           {"topk", test ? pick_int(rng, {1, 16, 64}) : pick_int(rng, {1, 63, 64, 65, 128, 576})},
           {"sink", coin(rng)}, {"varlen", coin(rng)}};
    if (d_qk == 512 && coin(rng, 0.4)) {  // the extra cache is exercised with d_qk 512 (ops.md §3.3)
      s["extra_topk"] = test ? pick_int(rng, {1, 16}) : pick_int(rng, {1, 32, 64, 128});
      s["extra_num_blocks"] = uniform(rng, 1, 3);
    }
    if (coin(rng, 0.15)) s["attr.kv_dequant"] = pick<std::string>(rng, {"fp32_product", "bf16_product"});
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    decode_index_specials(c.inputs.at("indices"), c.has("topk_length") ? &c.inputs.at("topk_length") : nullptr, rng);
    if (c.has("extra_indices_in_kvcache"))
      decode_index_specials(c.inputs.at("extra_indices_in_kvcache"),
                            c.has("extra_topk_length") ? &c.inputs.at("extra_topk_length") : nullptr, rng);
    if (c.attrs.value("cache_layout", std::string()) == "MODEL1_FP8Sparse") {
      model1_e8m0_extremes(c.inputs.at("k_cache"), c.inputs.at("indices"), rng);
      if (c.has("extra_k_cache"))
        model1_e8m0_extremes(c.inputs.at("extra_k_cache"), c.inputs.at("extra_indices_in_kvcache"), rng);
    }
    // Unreferenced slots already hold 0xFF bytes (NaN) from the op's generator.
  };
  return g;
}

}  // namespace dsv4::ops
