// The fuzz space of kv_cache_write (ops.md §3.1): token counts around 64, both d_qk, odd and test block sizes.
// Specials: zero rows (the amax floor), largest-finite rows, 2^-120-scaled rows, every kind of skipped slot (< 0).
#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace kv_cache_write_fuzz_space() {
  FuzzSpace g;
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

}  // namespace dsv4::ops
