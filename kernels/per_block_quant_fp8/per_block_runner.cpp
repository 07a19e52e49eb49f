// Kernel-registry entry of per_block_quant_fp8: converts a validated OpCase into a plan and device buffers
// (outputs start as copies of the caller's poisoned tensors, scale padding rows as 0xA5 bytes), launches, copies
// the logical elements back into the caller's outputs, and returns the plan as JSON (with whether the layout's
// padding rows came back 0, which the caller's logical w_s view cannot show).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/per_block_quant_fp8/per_block_quant_fp8.hpp"
#include "kernels/port/sim.hpp"

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
  switch (w.dtype()) {
    case DType::BF16: shape.dtype = InputType::bf16; break;
    case DType::F16: shape.dtype = InputType::f16; break;
    case DType::F32: shape.dtype = InputType::f32; break;
    default: throw InputError(std::string(kOp) + ": argument 'w' must be BF16, F16 or F32");
  }
  BlockQuantOptions opt;
  opt.recipe = c.attrs.at("scale_recipe").get<std::string>();
  opt.fp8 = c.attrs.at("fp8_dtype").get<std::string>() == "e4m3fnuz" ? Fp8::e4m3fnuz : Fp8::e4m3fn;
  if (!c.attrs.at("fp8_max").is_null()) opt.fp8_max = c.attrs.at("fp8_max").get<double>();
  const std::string layout = c.attrs.at("scale_layout").get<std::string>();
  opt.layout = layout == "mn_major" ? ScaleLayout::mn_major
               : layout == "packed_ue8m0" ? ScaleLayout::packed_ue8m0 : ScaleLayout::row_major;
  opt.group_size = c.attrs.at("group_size").get<std::int64_t>();
  const auto v = parse_block_quant_variant(o.variant);
  if (!v) throw InputError(std::string(kOp) + ": unknown variant '" + o.variant + "' (default, wave64_lds_reduction)");
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const BlockQuantPlan plan = make_block_quant_plan(shape, arch, opt);
  if (!plan.ok) throw CannotImplement(std::string(kOp) + " kernel cannot implement this case: " + plan.reason);

  Tensor& wq = outs.at("w_q");
  Tensor& ws = outs.at("w_s");
  const std::int64_t N = shape.n, K = shape.k;
  const Tensor wc = w.contiguous();
  port::DeviceBuffer dw(std::max<std::size_t>(1, wc.numel() * wc.element_bytes()));
  if (wc.numel()) dw.copy_from_host(wc.data(), wc.numel() * wc.element_bytes());
  std::vector<std::uint8_t> q_host(static_cast<std::size_t>(N * K));
  for (std::int64_t i = 0; i < N * K; ++i) q_host[i] = static_cast<std::uint8_t>(wq.code_linear(i));
  port::DeviceBuffer dq(std::max<std::size_t>(1, q_host.size()));
  if (!q_host.empty()) dq.copy_from_host(q_host.data(), q_host.size());
  // Device scale layout: logical element (i, j) at s_off(i, j) in 4-byte units.
  auto s_off = [&](std::int64_t i, std::int64_t j) {
    return opt.layout == ScaleLayout::row_major ? i * plan.scale_ld + j : j * plan.scale_ld + i;
  };
  std::vector<std::uint32_t> s_host(plan.scale_bytes / 4, 0xA5A5A5A5u);
  for (std::int64_t i = 0; i < plan.scale_rows; ++i)
    for (std::int64_t j = 0; j < plan.scale_cols; ++j) s_host[s_off(i, j)] = static_cast<std::uint32_t>(ws.code({i, j}));
  port::DeviceBuffer ds(std::max<std::size_t>(4, plan.scale_bytes));
  if (!s_host.empty()) ds.copy_from_host(s_host.data(), plan.scale_bytes);

  port::Stream stream;
  for (int r = 0; r < std::max(1, o.repeats); ++r)
    launch_per_block_quant_fp8(plan, BlockQuantBuffers{dw.data(), dq.data(), ds.data()}, stream);
  stream.synchronize();

  if (!q_host.empty()) dq.copy_to_host(q_host.data(), q_host.size());
  for (std::int64_t i = 0; i < N * K; ++i) wq.set_code_linear(i, q_host[i]);
  if (!s_host.empty()) ds.copy_to_host(s_host.data(), plan.scale_bytes);
  for (std::int64_t i = 0; i < plan.scale_rows; ++i)
    for (std::int64_t j = 0; j < plan.scale_cols; ++j) ws.set_code({i, j}, s_host[s_off(i, j)]);
  bool padding_zero = true;
  if (opt.layout != ScaleLayout::row_major)
    for (std::int64_t j = 0; j < plan.scale_cols; ++j)
      for (std::int64_t i = plan.scale_rows; i < plan.scale_ld; ++i) padding_zero = padding_zero && s_host[s_off(i, j)] == 0;

  Json j;
  j["kernel"] = kOp;
  j["variant"] = variant_name(plan.options.variant);
  j["grid"] = {plan.grid, 1, 1};
  j["block"] = {plan.block, 1, 1};
  j["wave_size"] = plan.wave_size;
  j["lds_bytes"] = {{"amax_partials", plan.lds_bytes}};
  j["lds_capacity"] = plan.lds_capacity;
  j["workspace_bytes"] = 0;
  j["scale_padding_rows_zero"] = padding_zero;
  j["tile_map"] = {{"output", "w_q"}, {"row_tile", opt.group_size}, {"row_name", "N-block"},
                   {"col_tile", opt.group_size}, {"col_name", "K-block"}};
  j["text"] = plan.describe();
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
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
