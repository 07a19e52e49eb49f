// Kernel-registry entry of per_token_group_quant_fp8: converts a validated OpCase into a plan and device buffers
// (outputs start as copies of the caller's poisoned tensors, scale padding as 0xA5 bytes), launches, copies the
// logical elements back into the caller's outputs, and returns the plan as JSON (with whether the layout's padding
// rows came back 0, the contract's rule that the caller's [M, G] view cannot show).
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/port/sim.hpp"
#include "kernels/quant_fp8/quant_fp8.hpp"

namespace dsv4::kernels {

namespace {

using namespace quant;

Json run_quant(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& x = c.in("x");
  if (x.dim() != 2) throw InputError("per_token_group_quant_fp8: argument 'x' must be [M, K]");
  QuantShape shape;
  shape.m = x.size(0);
  shape.k = x.size(1);
  switch (x.dtype()) {
    case DType::BF16: shape.dtype = InputType::bf16; break;
    case DType::F16: shape.dtype = InputType::f16; break;
    case DType::F32: shape.dtype = InputType::f32; break;
    default: throw InputError("per_token_group_quant_fp8: argument 'x' must be BF16, F16 or F32");
  }
  QuantOptions opt;
  opt.recipe = c.attrs.at("scale_recipe").get<std::string>();
  opt.fp8 = c.attrs.at("fp8_dtype").get<std::string>() == "e4m3fnuz" ? Fp8::e4m3fnuz : Fp8::e4m3fn;
  if (!c.attrs.at("fp8_max").is_null()) opt.fp8_max = c.attrs.at("fp8_max").get<double>();
  const std::string layout = c.attrs.at("scale_layout").get<std::string>();
  opt.layout = layout == "mn_major" ? ScaleLayout::mn_major
               : layout == "packed_ue8m0" ? ScaleLayout::packed_ue8m0 : ScaleLayout::row_major;
  opt.group_size = c.attrs.at("group_size").get<std::int64_t>();
  const auto v = parse_quant_variant(o.variant);
  if (!v) throw InputError("per_token_group_quant_fp8: unknown variant '" + o.variant + "' (default, wave32_reduction)");
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch("per_token_group_quant_fp8", o);
  opt.wave_size = effective_wave_size(arch);
  const QuantPlan plan = make_quant_plan(shape, arch, opt);
  if (!plan.ok) throw kernels::CannotImplement("per_token_group_quant_fp8 kernel cannot implement this case: " + plan.reason);

  Tensor& xq = outs.at("x_q");
  Tensor& xs = outs.at("x_s");
  const std::int64_t M = shape.m, K = shape.k, G = plan.groups;
  const Tensor xc = x.contiguous();
  port::DeviceBuffer dx(std::max<std::size_t>(1, xc.numel() * xc.element_bytes()));
  if (xc.numel()) dx.copy_from_host(xc.data(), xc.numel() * xc.element_bytes());
  std::vector<std::uint8_t> q_host(static_cast<std::size_t>(M * K));
  for (std::int64_t i = 0; i < M * K; ++i) q_host[i] = static_cast<std::uint8_t>(xq.code_linear(i));
  port::DeviceBuffer dq(std::max<std::size_t>(1, q_host.size()));
  if (!q_host.empty()) dq.copy_from_host(q_host.data(), q_host.size());
  // Device scale layout: element (m, j) (j = group, or packed word) at s_off(m, j) in 4-byte units.
  const bool packed = opt.layout == ScaleLayout::packed_ue8m0;
  const std::int64_t cols = packed ? plan.scale_words : G;
  auto s_off = [&](std::int64_t m, std::int64_t j) {
    return opt.layout == ScaleLayout::row_major ? m * G + j : j * plan.scale_ld + m;
  };
  std::vector<std::uint32_t> s_host(plan.scale_bytes / 4, 0xA5A5A5A5u);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t j = 0; j < cols; ++j) s_host[s_off(m, j)] = static_cast<std::uint32_t>(xs.code({m, j}));
  port::DeviceBuffer ds(std::max<std::size_t>(4, plan.scale_bytes));
  if (!s_host.empty()) ds.copy_from_host(s_host.data(), plan.scale_bytes);

  port::Stream stream;
  for (int r = 0; r < std::max(1, o.repeats); ++r)
    launch_per_token_group_quant_fp8(plan, QuantBuffers{dx.data(), dq.data(), ds.data()}, stream);
  stream.synchronize();

  if (!q_host.empty()) dq.copy_to_host(q_host.data(), q_host.size());
  for (std::int64_t i = 0; i < M * K; ++i) xq.set_code_linear(i, q_host[i]);
  if (!s_host.empty()) ds.copy_to_host(s_host.data(), plan.scale_bytes);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t j = 0; j < cols; ++j) xs.set_code({m, j}, s_host[s_off(m, j)]);
  bool padding_zero = true;
  if (opt.layout != ScaleLayout::row_major)
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t m = M; m < plan.scale_ld; ++m) padding_zero = padding_zero && s_host[s_off(m, j)] == 0;

  Json j;
  j["kernel"] = "per_token_group_quant_fp8";
  j["variant"] = variant_name(plan.options.variant);
  j["grid"] = {plan.grid, 1, 1};
  j["block"] = {plan.block, 1, 1};
  j["wave_size"] = plan.wave_size;
  j["lds_bytes"] = Json::object();
  j["lds_capacity"] = arch.lds_bytes_per_block;
  j["workspace_bytes"] = 0;
  j["scale_padding_rows_zero"] = padding_zero;
  j["tile_map"] = {{"output", "x_q"}, {"row_tile", 1}, {"row_name", "row (one wave per group)"},
                   {"col_tile", opt.group_size}, {"col_name", "group"}};
  j["text"] = plan.describe();
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
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
