// The fuzz space of topk (ops.md §5): columns around topk (shorter, equal, longer). Specials: -inf rows, all-tied
// rows, rows with exactly topk finite values, ranges one longer than topk.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace topk_fuzz_space() {
  FuzzSpace g;
  g.value_inputs = {"logits"};
  g.scale_inputs = {"logits"};
  g.deterministic = false;
  g.determinism_note = "ops.md §5: set semantics, slot order unspecified";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    const std::int64_t topk = test ? pick_int(rng, {1, 8, 16, 32}) : pick_int(rng, {1, 16, 512, 1024, 2048});
    const std::int64_t C = std::max<std::int64_t>(1, topk + pick_int(rng, {-1, 0, 1}) * uniform(rng, 1, 3) +
                                                         (coin(rng, 0.3) ? uniform(rng, 0, test ? 64 : 4096) : 0));
    Json s{{"R", test ? uniform(rng, 1, 6) : uniform(rng, 1, 16)}, {"C", C}, {"topk", topk}};
    if (coin(rng, 0.2)) s["attr.index_base"] = "row_relative";
    if (coin(rng, 0.1)) s["attr.masked"] = "select_neg_inf";
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& lg = c.inputs.at("logits");
    Tensor& rs = c.inputs.at("row_starts");
    Tensor& re = c.inputs.at("row_ends");
    const std::int64_t R = lg.size(0), C = lg.size(1), topk = c.attrs.value("topk", std::int64_t{2048});
    for (std::int64_t r = 0; r < R; ++r) {
      const std::int64_t s = static_cast<std::int64_t>(rs.get({r}));
      switch (uniform(rng, 0, 4)) {
        case 0:  // -inf row
          for (std::int64_t j = 0; j < C; ++j) lg.set({r, j}, -kInf);
          break;
        case 1: {  // all ties
          const double v = lg.get({r, s < C ? s : 0});
          for (std::int64_t j = 0; j < C; ++j) lg.set({r, j}, std::isfinite(v) ? v : 0.5);
          break;
        }
        case 2: {  // exactly topk finite values in the range, -inf elsewhere
          const std::int64_t e = std::min<std::int64_t>(C, s + topk);
          re.set({r}, double(e));
          for (std::int64_t j = 0; j < C; ++j)
            if (j < s || j >= e) lg.set({r, j}, -kInf);
            else if (!std::isfinite(lg.get({r, j}))) lg.set({r, j}, 1.0);
          break;
        }
        case 3:  // range one longer than topk (clamped)
          re.set({r}, double(std::min<std::int64_t>(C, s + topk + 1)));
          break;
        default: break;
      }
    }
  };
  return g;
}

}  // namespace dsv4::ops
