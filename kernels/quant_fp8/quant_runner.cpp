// Kernel-registry entry of per_token_group_quant_fp8: converts a validated OpCase into a plan and device buffers
// (outputs start as copies of the caller's poisoned tensors, scale padding as 0xA5 bytes), launches, copies the
// logical elements back into the caller's outputs, and returns the plan as JSON (with whether the layout's padding
// rows came back 0, the contract's rule that the caller's [M, G] view cannot show).
#include <fmt/format.h>

#include <algorithm>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/quant_fp8/quant_fp8.hpp"
#include "kernels/quant_fp8/quant_runner_support.hpp"

namespace dsv4::kernels {

namespace {

using namespace quant;

Json run_quant(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& x = c.in("x");
  if (x.dim() != 2) throw InputError("per_token_group_quant_fp8: argument 'x' must be [M, K]");
  QuantShape shape;
  shape.m = x.size(0);
  shape.k = x.size(1);
  shape.dtype = input_type_of(x, "per_token_group_quant_fp8", "x");
  QuantOptions opt;
  read_recipe_attrs(c, opt);
  const auto v = parse_quant_variant(o.variant);
  if (!v) throw unknown_variant("per_token_group_quant_fp8", o.variant);
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch("per_token_group_quant_fp8", o);
  opt.wave_size = effective_wave_size(arch);
  const QuantPlan plan = make_quant_plan(shape, arch, opt);
  require_plan("per_token_group_quant_fp8", plan);

  Tensor& xq = outs.at("x_q");
  Tensor& xs = outs.at("x_s");
  port::DeviceBuffer dx = upload_contiguous(x, 1), dq = upload_codes(xq, 1);
  // Device scale layout: element (m, j) (j = group, or packed word) at word m·G + j (row_major, ld = G) or
  // j·ld + m; padding rows m >= M start as 0xA5 bytes.
  const std::int64_t cols = opt.layout == ScaleLayout::packed_ue8m0 ? plan.scale_words : plan.groups;
  WordLayout scales = scale_words(xs, shape.m, cols, plan.scale_ld, plan.scale_bytes, opt.layout);

  launch_repeated(o, [&](port::Stream& stream) {
    launch_per_token_group_quant_fp8(plan, QuantBuffers{dx.data(), dq.data(), scales.dev.data()}, stream);
  });

  download_codes(dq, xq);
  scales.copy_back(xs);
  // The padding rows of mn_major / packed (the words no element of [M, cols] maps to) must come back 0.
  const bool padding_zero = opt.layout == ScaleLayout::row_major || scales.unmapped_words_equal(0);

  PlanFields f = plan_fields("per_token_group_quant_fp8", plan);
  f.lds_capacity = arch.lds_bytes_per_block;
  f.tile_map = tile_map_json("x_q", 1, "row (one wave per group)", opt.group_size, "group");
  Json j = plan_json(f);
  j["scale_padding_rows_zero"] = padding_zero;
  return j;
}

}  // namespace

void register_per_token_group_quant_fp8_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = "per_token_group_quant_fp8";
  e.summary = "1 x group FP8 quantization: one wave per group, amax by wave butterfly, recipe scales (fp32/UE8M0)";
  e.variants = {"default", "wave32_reduction"};
  e.run = run_quant;
  e.check_shapes = {Json{{"M", 5}, {"K", 384}, {"dtype", "bf16"}}, Json{{"M", 4}, {"K", 200}, {"dtype", "fp32"}}};
  e.plan_sweeps = {quant::quant_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
