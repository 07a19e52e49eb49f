// Descriptor of op 'topk' (ops.md §5). The generator draws N(0,1) logits with planted ties (values
// rounded to multiples of 1/8 on half the rows), −inf holes, ranges that are empty, shorter than topk
// or longer than topk.
#include <cmath>
#include <limits>

#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/topk/topk.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"

namespace dsv4::ops {
FuzzSpace topk_fuzz_space();  // fuzz_space.cpp
}  // namespace dsv4::ops

namespace dsv4 {
namespace ops {

namespace {
OpCase generate_topk(std::mt19937_64& rng, const Json& shape) {
  const std::int64_t R = gemm::shape_int(shape, "R", -1, 1);
  const std::int64_t C = gemm::shape_int(shape, "C", -1, 1);
  const std::int64_t topk = gemm::shape_int(shape, "topk", 16, 1);
  OpCase c;
  c.attrs["topk"] = topk;
  Tensor logits = gemm::randn(DType::F32, {R, C}, rng, 1.0);
  std::uniform_real_distribution<double> u(0, 1);
  Tensor rs = Tensor::empty(DType::I32, {R}), re = Tensor::empty(DType::I32, {R});
  for (std::int64_t r = 0; r < R; ++r) {
    for (std::int64_t j = 0; j < C; ++j) {
      if (r % 2 == 1) logits.set({r, j}, std::round(logits.get({r, j}) * 8) / 8);  // ties
      if (u(rng) < 0.1) logits.set({r, j}, -std::numeric_limits<double>::infinity());
    }
    std::int64_t s = std::uniform_int_distribution<std::int64_t>(0, C / 4)(rng);
    std::int64_t e = std::uniform_int_distribution<std::int64_t>(s, C)(rng);
    if (r == 0) e = s;                    // empty row
    if (r == 1) s = 0, e = C;  // full row
    rs.set({r}, static_cast<double>(s));
    re.set({r}, static_cast<double>(e));
  }
  c.inputs["logits"] = logits;
  c.inputs["row_starts"] = rs;
  c.inputs["row_ends"] = re;
  return c;
}
}  // namespace

OpDescriptor topk_descriptor() {
  OpDescriptor d;
  d.name = "topk";
  d.summary = "indexer top-k per row over [row_starts, row_ends), set semantics with ties, −1 padding";
  d.contract = "ops.md §5";
  d.inputs = {
      {"logits", {DType::F32}, "[R, C]", false, "NaN inside a row range is a precondition violation"},
      {"row_starts", {DType::I32}, "[R]", false, ""},
      {"row_ends", {DType::I32}, "[R]", false, "0 <= row_starts <= row_ends <= C"},
  };
  d.outputs = {{"topk_indices", {DType::I32}, "[R, topk]", false,
                "one valid answer (value-descending, ties by ascending index); compare with check_topk_set"}};
  d.attrs = {
      {"topk", 2048, "2048 (V3.2), 512 (V4-Flash), 1024 (V4-Pro, inferred)", {}, false},
      {"index_base", "absolute", "absolute column, or row_relative (column − row_starts[r])",
       {"absolute", "row_relative"}, false},
      {"masked", "minus1", "variant masked:{minus1|select_neg_inf}: unused slots −1, or masked positions (torch.topk demo)",
       {"minus1", "select_neg_inf"}, false},
  };
  d.reference = topk_reference;
  d.generate = generate_topk;
  set_shape_fields(d.name, {"R", "C", "topk"});
  d.fuzz = ops::topk_fuzz_space();
  d.default_shapes = {
      Json{{"R", 6}, {"C", 100}, {"topk", 16}},
      Json{{"R", 4}, {"C", 700}, {"topk", 512}},
      Json{{"R", 3}, {"C", 10}, {"topk", 32}},
  };
  // Default oracle policies (one per output) with their reasoning: error_model.md beside this file or the
  // anchor suite of ops.md. oracle::require_default_policies rejects an output without one.
  d.oracle["topk_indices"] = {"topk-set", {{"tie_tol", 1e-5}},
      "ops.md §5 set semantics: order unspecified, ties within 1e-5 of the k-th value may swap (vLLM "
      "test_top_k_per_row), -1 padding must match"};
  return d;
}

}  // namespace ops

void register_topk(Registry& r) { r.add(ops::topk_descriptor()); }

}  // namespace dsv4
