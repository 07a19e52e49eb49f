// Generator specs of the indexer ops: indexer_logits (ops.md §4.1), indexer_logits_paged (§4.2) and topk
// (§5). Shapes sit on 64/128 alignment edges of S_kv / context lengths and block_kv; topk around the
// row-range length (shorter, equal, longer). Specials: empty and full [ks, ke) ranges, zero kv_sf
// (>= 0 is legal), zero and negative weights, shortened causal context lengths (unreferenced paged slots
// stay NaN), -inf rows, all-tied rows and rows with exactly topk finite values (topk).
#include <algorithm>
#include <cmath>
#include <limits>

#include "fuzz/generators/spec_helpers.hpp"

namespace dsv4::fuzz::gen {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

OpGenSpec indexer_logits_spec() {
  OpGenSpec g;
  g.op = "indexer_logits";
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

OpGenSpec indexer_logits_paged_spec() {
  OpGenSpec g;
  g.op = "indexer_logits_paged";
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

OpGenSpec topk_spec() {
  OpGenSpec g;
  g.op = "topk";
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

}  // namespace dsv4::fuzz::gen
