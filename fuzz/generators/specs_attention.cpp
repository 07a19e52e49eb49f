// Generator specs of the attention-side ops: merge_attn_states (ops.md §1), sparse_mla_prefill (§2),
// sparse_mla_decode (§3) and kv_cache_write (§3.1). Shapes sit on the merge kernel's 16-byte pack
// edges (D and head stride multiples of 8 bf16/fp16 or 4 fp32 elements, and just off them: refused by
// the plan, a discard) and its 128-thread block edges; attention shapes on FlashMLA's limits
// (h_q 64/128, topk multiples of 64/128, the decode test block sizes). Specials: ±inf/NaN LSEs and NaN
// garbage in rows nobody reads (merge); every invalid index kind of each contract (prefill: <0, >=s_kv,
// past topk_length; decode: only -1), topk_length 0, NaN in unreferenced kv rows / cache slots, E8M0
// extremes 0x00/0xFE in MODEL1 cache scales (over zeroed tiles), zero / extreme kv rows (cache write).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "fuzz/generators/spec_helpers.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"

namespace dsv4::fuzz::gen {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

OpGenSpec merge_attn_states_spec() {
  OpGenSpec g;
  g.op = "merge_attn_states";
  g.value_inputs = {"prefix_output", "suffix_output"};
  g.scale_inputs = {"prefix_output", "suffix_output"};
  g.deterministic = true;
  g.determinism_note = "ops.md §1: per-element fp32 math, no cross-thread reduction";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    const std::string dt = pick<std::string>(rng, {"BF16", "F16", "F32"});
    const std::int64_t pack = dt == "F32" ? 4 : 8;
    std::int64_t D = pack * uniform(rng, 1, test ? 8 : 64);
    if (coin(rng, 0.15)) D = std::max<std::int64_t>(1, D + pick_int(rng, {-1, 1, 2}));  // off the pack: refused
    const std::int64_t H = test ? uniform(rng, 1, 4) : pick_int(rng, {1, 2, 3, 8, 16, 31, 64, 128});
    std::int64_t T;
    if (test) {
      T = uniform(rng, 1, 6);
    } else {  // threads = T·H·D/pack around a multiple of the 128-thread block
      const std::int64_t per_token = H * std::max<std::int64_t>(1, D / pack);
      const std::int64_t target = 128 * uniform(rng, 1, 8) + pick_int(rng, {-1, 0, 1}) * per_token;
      T = std::clamp<std::int64_t>((target + per_token - 1) / per_token, 1, 256);
    }
    Json s{{"T", T}, {"H", H}, {"D", D}, {"dtype", dt}, {"transposed_lse", coin(rng)}};
    if (coin(rng, 0.3)) s["pad"] = coin(rng, 0.7) ? pack * uniform(rng, 1, 4) : uniform(rng, 1, 3);
    if (coin(rng, 0.3)) s["prefill_tokens_with_context"] = pick_int(rng, {0, T, uniform(rng, 0, T)});
    if (coin(rng, 0.2)) {
      s["output_scale"] = pick<double>(rng, {0.05, 1.0, 0.375});
      if (coin(rng)) s["attr.output_fp8_format"] = "e4m3fnuz";
    }
    if (coin(rng, 0.2)) s["attr.both_empty"] = "copy_prefix";
    if (coin(rng, 0.1)) s["attr.pos_inf_lse"] = "raw";
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& pl = c.inputs.at("prefix_lse");
    Tensor& sl = c.inputs.at("suffix_lse");
    Tensor& po = c.inputs.at("prefix_output");
    const std::int64_t H = pl.size(0), T = pl.size(1);
    const std::int64_t ptc = c.attrs.contains("prefill_tokens_with_context") && c.attrs["prefill_tokens_with_context"].is_number_integer()
                                 ? c.attrs["prefill_tokens_with_context"].get<std::int64_t>() : T;
    const bool zeros = !c.attrs.contains("both_empty") || c.attrs["both_empty"] == "zeros";
    const double big = 120.0;
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t h = 0; h < H; ++h) {
        double p = pl.get({h, t}), s = sl.get({h, t});
        switch (uniform(rng, 0, 9)) {
          case 0: p = -kInf, s = -kInf; break;     // both empty
          case 1: p = kInf, s = -kInf; break;      // +inf = empty (FA2) on one side
          case 2: p = kInf, s = kInf; break;       // both +inf
          case 3: p = kNaN; break;                 // NaN lse propagates (§1 edge cases)
          case 4: p = s + big; break;              // one-sided exp underflow
          case 5: s = p - big; break;
          case 6: p = s; break;                    // equal weights
          default: break;
        }
        pl.set({h, t}, p);
        sl.set({h, t}, s);
        // NaN garbage where nobody reads prefix_output: both-empty rows under `zeros`, tokens past ptc.
        const bool map_pos = c.attrs.value("pos_inf_lse", std::string("empty")) == "empty";
        auto empty = [&](double x) { return x == -kInf || (map_pos && x == kInf); };
        if ((zeros && empty(p) && empty(s)) || t >= ptc) {
          Tensor row = po.select(0, t).select(0, h);
          for (std::int64_t d = 0; d < row.numel(); ++d) row.set_linear(d, kNaN);
        }
      }
  };
  return g;
}

OpGenSpec sparse_mla_prefill_spec() {
  OpGenSpec g;
  g.op = "sparse_mla_prefill";
  g.value_inputs = {"q", "kv"};
  g.scale_inputs = {"q"};
  g.deterministic = false;
  g.determinism_note = "ops.md §2 states no bitwise-rerun requirement";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    const std::int64_t d_qk = pick_int(rng, {512, 576});
    const std::int64_t s_kv = test ? pick_int(rng, {1, 31, 64, 65}) : pick_int(rng, {1, 95, 127, 128, 129, 511, 1024, 1521});
    const std::int64_t topk = test ? pick_int(rng, {1, 16, 64}) : coin(rng, 0.7) ? align_edge(rng, 64, 8, 0) : align_edge(rng, 128, 4);
    Json s{{"s_q", test ? uniform(rng, 1, 3) : pick_int(rng, {1, 2, 4, 7, 16})},
           {"h_q", test ? uniform(rng, 1, 3) : pick_int(rng, {1, 16, 63, 64, 65, 128})},
           {"d_qk", d_qk}, {"s_kv", s_kv}, {"topk", topk}, {"sink", coin(rng)}, {"varlen", coin(rng)}};
    if (coin(rng, 0.2)) s["pad"] = pick_int(rng, {0, 8, 64});
    if (coin(rng, 0.1)) s["attr.lonely_lse"] = "-inf";
    if (coin(rng, 0.1)) s["attr.lse_units"] = "log2";
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& idx = c.inputs.at("indices");
    Tensor& kv = c.inputs.at("kv");
    const std::int64_t s_q = idx.size(0), topk = idx.size(2), s_kv = kv.size(0);
    const std::int64_t invalid[] = {std::numeric_limits<std::int32_t>::min(), -2, -1, s_kv, s_kv + 1,
                                    std::numeric_limits<std::int32_t>::max()};
    Tensor* tl = c.has("topk_length") ? &c.inputs.at("topk_length") : nullptr;
    std::set<std::int64_t> used;
    for (std::int64_t i = 0; i < s_q; ++i) {
      if (tl) tl->set_code({i}, static_cast<std::uint32_t>(pick_int(rng, {0, topk, uniform(rng, 0, topk)})));
      const std::int64_t len = tl ? static_cast<std::int32_t>(tl->code({i})) : topk;
      for (std::int64_t j = 0; j < topk; ++j) {
        // Replace valid entries by every invalid kind (never creating a duplicate valid index).
        if (coin(rng, 0.3)) idx.set_code({i, 0, j}, static_cast<std::uint32_t>(invalid[uniform(rng, 0, 5)]));
        const std::int64_t v = static_cast<std::int32_t>(idx.code({i, 0, j}));
        if (v >= 0 && v < s_kv && j < len) used.insert(v);
      }
    }
    // kv rows no valid in-length index references hold NaN (must be ignored, ops.md §2 must_ignore).
    for (std::int64_t r = 0; r < s_kv; ++r)
      if (!used.count(r)) {
        Tensor row = kv.select(0, r);
        for (std::int64_t d = 0; d < row.numel(); ++d) row.set_linear(d, kNaN);
      }
  };
  return g;
}

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

OpGenSpec sparse_mla_decode_spec() {
  OpGenSpec g;
  g.op = "sparse_mla_decode";
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

OpGenSpec kv_cache_write_spec() {
  OpGenSpec g;
  g.op = "kv_cache_write";
  g.value_inputs = {"kv"};
  g.scale_inputs = {"kv"};
  g.deterministic = true;
  g.determinism_note = "ops.md §3.1: exact quantize-and-insert, each slot written by one token";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"n_tokens", test ? uniform(rng, 1, 6) : pick_int(rng, {1, 7, 16, 63, 64, 65, 200})},
           {"d_qk", pick_int(rng, {512, 576})},
           {"block_size", pick_int(rng, {1, 2, 5, 7, 53, 61, 64, 69})},
           {"num_blocks", test ? uniform(rng, 1, 2) : uniform(rng, 1, 8)},
           {"slot_dtype", coin(rng) ? "I64" : "I32"}};
    if (coin(rng, 0.3)) s["recipe"] = "flashmla-kv-test";
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& kv = c.inputs.at("kv");
    const double mx = max_finite_of(kv.dtype());
    for (std::int64_t i = 0; i < kv.size(0); ++i) {
      Tensor row = kv.select(0, i);
      const std::int64_t kind = uniform(rng, 0, 4);
      for (std::int64_t d = 0; d < row.numel(); ++d) {
        if (kind == 0) row.set_linear(d, 0.0);                                  // amax floor (scale clamp)
        else if (kind == 1) row.set_linear(d, (d % 2 ? -1 : 1) * mx);           // largest scale
        else if (kind == 2) row.set_linear(d, std::ldexp(row.get_linear(d), -120));  // subnormal-ish tile
      }
    }
    // Every kind of skipped slot (< 0 skips, ops.md §3.1).
    Tensor& sm = c.inputs.at("slot_mapping");
    const bool i32 = sm.dtype() == DType::I32;
    for (std::int64_t i = 0; i < sm.numel(); ++i)
      if (coin(rng, 0.2)) {
        const std::int64_t v = pick_int(rng, {-1, -2, i32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min()});
        sm.set_code_linear(i, static_cast<std::uint64_t>(v) & (i32 ? 0xFFFFFFFFull : ~0ull));
      }
  };
  return g;
}

}  // namespace dsv4::fuzz::gen
