// The fuzz space of sparse_mla_prefill (ops.md §2): shapes on FlashMLA's limits (h_q 64/128, topk multiples of
// 64/128). Specials: every invalid index kind of the contract (<0, >=s_kv, past topk_length), topk_length 0, NaN
// in unreferenced kv rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace sparse_mla_prefill_fuzz_space() {
  FuzzSpace g;
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

}  // namespace dsv4::ops
