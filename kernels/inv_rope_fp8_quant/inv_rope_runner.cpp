// Kernel-registry entry of inv_rope_fp8_quant: converts a validated OpCase into a plan and device buffers (outputs
// start as copies of the caller's poisoned tensors, including the scale padding rows, which the logical o_scale
// view [G, align(T,4), cols] shows), refuses out-of-range positions before launch, launches, copies every logical
// element back and returns the plan as JSON.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kernels/inv_rope_fp8_quant/inv_rope_fp8_quant.hpp"
#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/port/sim.hpp"

namespace dsv4::kernels {

namespace {

using namespace inv_rope;
constexpr const char* kOp = "inv_rope_fp8_quant";

Json run_inv_rope(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& ot = c.in("o");
  const Tensor& pos = c.in("positions");
  const Tensor& cache = c.in("cos_sin_cache");
  if (ot.dim() != 3 || ot.dtype() != DType::BF16) throw InputError(std::string(kOp) + ": argument 'o' must be BF16 [T, H, hd]");
  if (pos.dim() != 1 || pos.size(0) != ot.size(0) || (pos.dtype() != DType::I64 && pos.dtype() != DType::I32))
    throw InputError(std::string(kOp) + ": argument 'positions' must be I64/I32 [T]");
  if (cache.dim() != 2 || cache.dtype() != DType::F32)
    throw InputError(std::string(kOp) + ": argument 'cos_sin_cache' must be F32 [max_pos, rope_dim]");
  InvRopeShape shape;
  shape.t = ot.size(0);
  shape.h = ot.size(1);
  shape.head_dim = ot.size(2);
  shape.max_pos = cache.size(0);
  shape.positions_i32 = pos.dtype() == DType::I32;
  InvRopeOptions opt;
  opt.recipe = c.attrs.at("scale_recipe").get<std::string>();
  opt.fp8 = c.attrs.at("fp8_dtype").get<std::string>() == "e4m3fnuz" ? Fp8::e4m3fnuz : Fp8::e4m3fn;
  if (!c.attrs.at("fp8_max").is_null()) opt.fp8_max = c.attrs.at("fp8_max").get<double>();
  const std::string layout = c.attrs.at("scale_layout").get<std::string>();
  opt.layout = layout == "packed_ue8m0" ? ScaleLayout::packed_ue8m0
               : layout == "mn_major" ? ScaleLayout::mn_major : ScaleLayout::row_major;
  opt.group_size = c.attrs.at("group_size").get<std::int64_t>();
  opt.n_groups = c.attrs.at("n_groups").get<std::int64_t>();
  opt.rope_dim = c.attrs.at("rope_dim").get<std::int64_t>();
  const std::string pairing = c.attrs.at("pairing").get<std::string>();
  const auto pr = parse_pairing(pairing);
  if (!pr)
    throw CannotImplement(std::string(kOp) + " kernel cannot implement RoPE pairing '" + pairing +
                          "' (implemented: interleaved, neox)");
  opt.pairing = *pr;
  const auto v = parse_inv_rope_variant(o.variant);
  if (!v) throw InputError(std::string(kOp) + ": unknown variant '" + o.variant + "' (default, forward_rotation)");
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const InvRopePlan plan = make_inv_rope_plan(shape, arch, opt);
  if (!plan.ok) throw CannotImplement(std::string(kOp) + " kernel cannot implement this case: " + plan.reason);
  if (cache.size(1) != opt.rope_dim)
    throw InputError(fmt::format("{}: argument 'cos_sin_cache' must have rope_dim = {} columns, has {}", kOp,
                                 opt.rope_dim, cache.size(1)));
  const std::int64_t T = shape.t, G = opt.n_groups, D = plan.d, Tal = plan.t_aligned, cols = plan.scale_cols;
  for (std::int64_t t = 0; t < T; ++t) {
    const auto pv = static_cast<std::int64_t>(pos.get({t}));
    if (pv < 0 || pv >= shape.max_pos)
      throw InputError(fmt::format("{}: argument 'positions'[{}] = {} must lie in [0, max_pos = {}) (refused before "
                                   "launch)", kOp, t, pv, shape.max_pos));
  }

  const Tensor oc = ot.contiguous(), pc = pos.contiguous(), cc = cache.contiguous();
  auto upload = [](const Tensor& t) {
    port::DeviceBuffer b(std::max<std::size_t>(4, t.numel() * t.element_bytes()));
    if (t.numel()) b.copy_from_host(t.data(), t.numel() * t.element_bytes());
    return b;
  };
  port::DeviceBuffer d_o = upload(oc), d_pos = upload(pc), d_cs = upload(cc);
  Tensor& of = outs.at("o_fp8");
  Tensor& os = outs.at("o_scale");
  std::vector<std::uint8_t> q_host(plan.out_bytes);  // [G, T, D]
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t g = 0; g < G; ++g)
      for (std::int64_t d = 0; d < D; ++d) q_host[(g * T + t) * D + d] = static_cast<std::uint8_t>(of.code({t, g, d}));
  port::DeviceBuffer dq(std::max<std::size_t>(1, q_host.size()));
  if (!q_host.empty()) dq.copy_from_host(q_host.data(), q_host.size());
  std::vector<std::uint32_t> s_host(plan.scale_bytes / 4);  // [G, cols, Tal]
  for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t t = 0; t < Tal; ++t)
      for (std::int64_t k = 0; k < cols; ++k)
        s_host[(g * cols + k) * Tal + t] = static_cast<std::uint32_t>(os.code({g, t, k}));
  port::DeviceBuffer ds(std::max<std::size_t>(4, plan.scale_bytes));
  if (!s_host.empty()) ds.copy_from_host(s_host.data(), plan.scale_bytes);

  port::Stream stream;
  const InvRopeBuffers io{d_o.data(), d_pos.data(), static_cast<const float*>(d_cs.data()), dq.data(), ds.data()};
  for (int r = 0; r < std::max(1, o.repeats); ++r) launch_inv_rope_fp8_quant(plan, io, stream);
  stream.synchronize();

  if (!q_host.empty()) dq.copy_to_host(q_host.data(), q_host.size());
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t g = 0; g < G; ++g)
      for (std::int64_t d = 0; d < D; ++d) of.set_code({t, g, d}, q_host[(g * T + t) * D + d]);
  if (!s_host.empty()) ds.copy_to_host(s_host.data(), plan.scale_bytes);
  for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t t = 0; t < Tal; ++t)
      for (std::int64_t k = 0; k < cols; ++k) os.set_code({g, t, k}, s_host[(g * cols + k) * Tal + t]);

  Json j;
  j["kernel"] = kOp;
  j["variant"] = variant_name(plan.options.variant);
  j["grid"] = {plan.grid, 1, 1};
  j["block"] = {plan.block, 1, 1};
  j["wave_size"] = plan.wave_size;
  j["lds_bytes"] = Json::object();
  j["lds_capacity"] = arch.lds_bytes_per_block;
  j["workspace_bytes"] = 0;
  j["tile_map"] = {{"output", "o_fp8"}, {"row_tile", 1}, {"row_name", "token (one wave per head)"},
                   {"col_tile", opt.group_size}, {"col_name", "group"}};
  j["text"] = plan.describe();
  return j;
}

}  // namespace

void register_inv_rope_fp8_quant_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "V4 attention output: inverse RoPE (interleaved/neox) + FP8 1x128 quantization, one wave per head, "
              "grouped [G, T, D] codes, MN-major fp32 or packed UE8M0 scales";
  e.variants = {"default", "forward_rotation"};
  e.run = run_inv_rope;
  e.check_shapes = {Json{{"T", 5}, {"H", 8}, {"max_pos", 64}}, Json{{"T", 3}, {"H", 4}, {"n_groups", 2}, {"max_pos", 32}}};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
