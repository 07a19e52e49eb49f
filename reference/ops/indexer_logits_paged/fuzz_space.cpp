// The fuzz space of indexer_logits_paged (ops.md §4.2): context lengths on block_kv edges. Specials: shortened
// causal context lengths (unreferenced paged slots stay NaN), zero and negative weights.
#include <algorithm>
#include <cmath>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace indexer_logits_paged_fuzz_space() {
  FuzzSpace g;
  g.value_inputs = {"q", "weights"};
  g.scale_inputs = {"q", "weights"};
  g.deterministic = true;
  g.determinism_note = "ops.md §4.2: 20 reruns must be bitwise equal";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    const std::int64_t next_n = pick_int(rng, {1, 2, 4});
    const std::int64_t block_kv = test ? pick_int(rng, {8, 16}) : pick_int(rng, {8, 16, 64});
    const std::int64_t ctx = std::max(next_n, test ? align_edge(rng, block_kv, 3) : align_edge(rng, block_kv, 12));
    Json s{{"B", test ? uniform(rng, 1, 2) : uniform(rng, 1, 4)}, {"next_n", next_n},
           {"H", test ? pick_int(rng, {1, 4}) : pick_int(rng, {4, 8, 64})},
           {"D", test ? pick_int(rng, {32}) : pick_int(rng, {32, 64, 128})},
           {"block_kv", block_kv}, {"max_context_len", ctx}, {"dtype", coin(rng) ? "e4m3fn" : "e4m3fnuz"}};
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& ctx = c.inputs.at("context_lens");
    const std::int64_t B = ctx.size(0), next_n = ctx.size(1);
    for (std::int64_t b = 0; b < B; ++b) {
      if (!coin(rng)) continue;
      const std::int64_t L = static_cast<std::int64_t>(ctx.get({b, next_n - 1}));
      const std::int64_t Ls = coin(rng) ? next_n : uniform(rng, next_n, L);  // shortest causal context
      for (std::int64_t j = 0; j < next_n; ++j) ctx.set({b, j}, double(Ls - next_n + j + 1));
    }
    Tensor& w = c.inputs.at("weights");
    for (std::int64_t i = 0; i < w.size(0); ++i)
      if (coin(rng, 0.3))
        for (std::int64_t h = 0; h < w.size(1); ++h) w.set({i, h}, coin(rng) ? 0.0 : -std::abs(w.get({i, h})));
  };
  return g;
}

}  // namespace dsv4::ops
