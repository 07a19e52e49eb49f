// Fuzz helpers of the FP8 quantization ops; see quant_fuzz.hpp.
#include "reference/ops/common/quant_fuzz.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "reference/ops/common/fuzz_draw.hpp"

namespace dsv4::ops {

using namespace draw;

namespace {

const std::vector<std::string> kPow2Recipes = {"dg-ceil", "dsv4-act", "tk-ceil", "v3-triton", "vllm-v4-kv"};
const std::vector<std::string> kRecipes = {"plain-fp32", "dg-ceil", "dsv4-act", "tk-ceil", "v3-triton",
                                           "flashmla-kv-test", "vllm-v4-kv", "vllm-v4-invrope"};

}  // namespace

void quant_attrs(Json& s, std::mt19937_64& rng, bool allow_row_major) {
  const std::string layout = allow_row_major ? pick<std::string>(rng, {"row_major", "mn_major", "packed_ue8m0"})
                                             : pick<std::string>(rng, {"mn_major", "packed_ue8m0"});
  s["attr.scale_layout"] = layout;
  if (layout == "packed_ue8m0") s["attr.scale_recipe"] = pick(rng, kPow2Recipes);
  else if (coin(rng, 0.6)) s["attr.scale_recipe"] = pick(rng, kRecipes);
  if (coin(rng, 0.3)) s["attr.fp8_dtype"] = "e4m3fnuz";
}

void extreme_rows(Tensor& x, std::mt19937_64& rng, double top) {
  for (std::int64_t r = 0; r < x.size(0); ++r) {
    Tensor row = x.select(0, r);
    const std::int64_t kind = uniform(rng, 0, 5);
    for (std::int64_t i = 0; i < row.numel(); ++i) {
      switch (kind) {
        case 0: row.set_linear(i, 0.0); break;
        case 1: row.set_linear(i, (i % 3 == 0 ? -1 : 1) * top); break;
        case 2: row.set_linear(i, std::ldexp(row.get_linear(i), -120)); break;
        case 3: row.set_linear(i, i == 0 ? row.get_linear(0) + 1.0 : 0.0); break;
        case 4: row.set_linear(i, i % 2 ? -0.0 : 0.0); break;
        default: break;
      }
    }
  }
}

}  // namespace dsv4::ops
