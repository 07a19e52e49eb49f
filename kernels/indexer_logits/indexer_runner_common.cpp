// Host helpers of the indexer runners; see indexer_runner_common.hpp.
#include "kernels/indexer_logits/indexer_runner_common.hpp"

namespace dsv4::kernels::indexer {

std::vector<std::int64_t> int_values(const Tensor& t) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) v[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(t.get_linear(i));
  return v;
}

Fp8 fp8_of(const Tensor& q, const char* op) {
  if (q.dtype() == DType::F8_E4M3FN) return Fp8::e4m3fn;
  if (q.dtype() == DType::F8_E4M3FNUZ) return Fp8::e4m3fnuz;
  throw InputError(std::string(op) + ": q must be F8_E4M3FN or F8_E4M3FNUZ, got " + std::string(dtype_name(q.dtype())));
}

WordLayout padded_logits(const Tensor& out, std::int64_t row_stride) {
  const std::int64_t rows = out.size(0);
  return WordLayout(out, rows, out.size(1), static_cast<std::size_t>(rows * row_stride),
                    [row_stride](std::int64_t r, std::int64_t c) { return r * row_stride + c; }, 16);
}

Json common_plan_json(const CommonPlan& plan, const char* kernel, const std::string& text) {
  Json j = plan_json({.kernel = kernel,
                      .variant = variant_name(plan.variant),
                      .grid = {plan.grid[0], plan.grid[1], plan.grid[2]},
                      .block = plan.block,
                      .lds_bytes = lds_json(plan.lds_phases()),
                      .lds_capacity = plan.lds_capacity,
                      .workspace_bytes = plan.workspace_bytes,
                      .tile_map = tile_map_json("logits", 1, "query row", kKeysPerBlock, "key tile"),
                      .text = text});
  j["row_stride"] = plan.row_stride;
  return j;
}

}  // namespace dsv4::kernels::indexer
