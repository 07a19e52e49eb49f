// The fuzz space of merge_attn_states (ops.md §1): shapes on the merge kernel's 16-byte pack edges (D and head
// stride multiples of 8 bf16/fp16 or 4 fp32 elements, and just off them: refused by the plan, a discard) and its
// 128-thread block edges. Specials: +-inf/NaN LSEs and NaN garbage in rows nobody reads.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace merge_attn_states_fuzz_space() {
  FuzzSpace g;
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

}  // namespace dsv4::ops
