// The fuzz space of indexer_logits (ops.md §4.1): S_kv on 64 alignment edges. Specials: empty and full
// [ks, ke) ranges, zero kv_sf (>= 0 is legal), zero and negative weights.
#include <cmath>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace indexer_logits_fuzz_space() {
  FuzzSpace g;
  g.value_inputs = {"q", "kv", "weights"};
  g.scale_inputs = {"q", "weights"};
  g.deterministic = true;
  g.determinism_note = "ops.md §4: 20 reruns must be bitwise equal";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"S", test ? uniform(rng, 1, 4) : pick_int(rng, {1, 3, 4, 17, 64})},
           {"S_kv", test ? pick_int(rng, {1, 31, 64, 65}) : align_edge(rng, 64, 8)},
           {"H", test ? pick_int(rng, {1, 4}) : pick_int(rng, {1, 8, 32, 64})},
           {"D", test ? pick_int(rng, {32, 64}) : pick_int(rng, {32, 64, 128})},
           {"dtype", coin(rng) ? "e4m3fn" : "e4m3fnuz"}};
    if (coin(rng, 0.15)) s["attr.dot"] = "bf16";
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& ks = c.inputs.at("cu_seq_len_k_start");
    Tensor& ke = c.inputs.at("cu_seq_len_k_end");
    const std::int64_t S = ks.numel(), S_kv = c.inputs.at("kv").size(0);
    for (std::int64_t i = 0; i < S; ++i) {
      switch (uniform(rng, 0, 3)) {
        case 0: { const std::int64_t e = uniform(rng, 0, S_kv); ks.set({i}, double(e)); ke.set({i}, double(e)); break; }
        case 1: ks.set({i}, 0.0); ke.set({i}, double(S_kv)); break;
        case 2: ks.set({i}, double(S_kv)); ke.set({i}, double(S_kv)); break;
        default: break;
      }
    }
    Tensor& sf = c.inputs.at("kv_sf");
    for (std::int64_t j = 0; j < sf.numel(); ++j)
      if (coin(rng, 0.1)) sf.set({j}, 0.0);
    Tensor& w = c.inputs.at("weights");
    for (std::int64_t i = 0; i < w.size(0); ++i) {
      const std::int64_t kind = uniform(rng, 0, 3);
      for (std::int64_t h = 0; h < w.size(1); ++h)
        if (kind == 0) w.set({i, h}, 0.0);
        else if (kind == 1) w.set({i, h}, -std::abs(w.get({i, h})));
    }
  };
  return g;
}

}  // namespace dsv4::ops
