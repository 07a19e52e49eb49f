// Kernel-registry entry of per_block_quant_fp8: converts a validated OpCase into a plan and device buffers
// (outputs start as copies of the caller's poisoned tensors, scale padding rows as 0xA5 bytes), launches, copies
// the logical elements back into the caller's outputs, and returns the plan as JSON (with whether the layout's
// padding rows came back 0, which the caller's logical w_s view cannot show).
#include <fmt/format.h>

#include <algorithm>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/per_block_quant_fp8/per_block_quant_fp8.hpp"
#include "kernels/quant_fp8/quant_runner_support.hpp"

namespace dsv4::kernels {

namespace {

using namespace block_quant;
constexpr const char* kOp = "per_block_quant_fp8";

Json run_block_quant(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& w = c.in("w");
  if (w.dim() != 2) throw InputError(std::string(kOp) + ": argument 'w' must be [N, K]");
  BlockQuantShape shape;
  shape.n = w.size(0);
  shape.k = w.size(1);
  shape.dtype = quant::input_type_of(w, kOp, "w");
  BlockQuantOptions opt;
  quant::read_recipe_attrs(c, opt);
  const auto v = parse_block_quant_variant(o.variant);
  if (!v) throw unknown_variant(kOp, o.variant);
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const BlockQuantPlan plan = make_block_quant_plan(shape, arch, opt);
  require_plan(kOp, plan);

  Tensor& wq = outs.at("w_q");
  Tensor& ws = outs.at("w_s");
  port::DeviceBuffer dw = upload_contiguous(w, 1), dq = upload_codes(wq, 1);
  // Device scale layout: logical element (i, j) at word i·ld + j (row_major) or j·ld + i; padding rows 0xA5 bytes.
  WordLayout scales =
      quant::scale_words(ws, plan.scale_rows, plan.scale_cols, plan.scale_ld, plan.scale_bytes, opt.layout);

  launch_repeated(o, [&](port::Stream& stream) {
    launch_per_block_quant_fp8(plan, BlockQuantBuffers{dw.data(), dq.data(), scales.dev.data()}, stream);
  });

  download_codes(dq, wq);
  scales.copy_back(ws);
  // The padding rows of mn_major / packed (the words no element of w_s maps to) must come back 0.
  const bool padding_zero = opt.layout == ScaleLayout::row_major || scales.unmapped_words_equal(0);

  PlanFields f = plan_fields(kOp, plan);
  f.lds_bytes = {{"amax_partials", plan.lds_bytes}};
  f.lds_capacity = plan.lds_capacity;
  f.tile_map = tile_map_json("w_q", opt.group_size, "N-block", opt.group_size, "K-block");
  Json j = plan_json(f);
  j["scale_padding_rows_zero"] = padding_zero;
  return j;
}

}  // namespace

void register_per_block_quant_fp8_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "128x128 block FP8 weight quantization: one block per tile, wave butterfly + LDS cross-wave amax, "
              "recipe scales (fp32/UE8M0)";
  e.variants = {"default", "wave64_lds_reduction"};
  e.run = run_block_quant;
  e.check_shapes = {Json{{"N", 130}, {"K", 300}, {"dtype", "bf16"}}, Json{{"N", 64}, {"K", 200}, {"dtype", "fp32"}}};
  e.plan_sweeps = {block_quant::per_block_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
