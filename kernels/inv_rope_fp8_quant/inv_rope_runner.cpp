// Kernel-registry entry of inv_rope_fp8_quant: converts a validated OpCase into a plan and device buffers (outputs
// start as copies of the caller's poisoned tensors, including the scale padding rows, which the logical o_scale
// view [G, align(T,4), cols] shows), refuses out-of-range positions before launch, launches, copies every logical
// element back and returns the plan as JSON.
#include <fmt/format.h>

#include <algorithm>

#include "kernels/inv_rope_fp8_quant/inv_rope_fp8_quant.hpp"
#include "kernels/quant_fp8/quant_runner_support.hpp"
#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"

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
  quant::read_recipe_attrs(c, opt);
  opt.n_groups = c.attrs.at("n_groups").get<std::int64_t>();
  opt.rope_dim = c.attrs.at("rope_dim").get<std::int64_t>();
  const std::string pairing = c.attrs.at("pairing").get<std::string>();
  const auto pr = parse_pairing(pairing);
  if (!pr)
    throw CannotImplement(std::string(kOp) + " kernel cannot implement RoPE pairing '" + pairing +
                          "' (implemented: interleaved, neox)");
  opt.pairing = *pr;
  const auto v = parse_inv_rope_variant(o.variant);
  if (!v) throw unknown_variant(kOp, o.variant);
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const InvRopePlan plan = make_inv_rope_plan(shape, arch, opt);
  require_plan(kOp, plan);
  if (cache.size(1) != opt.rope_dim)
    throw InputError(fmt::format("{}: argument 'cos_sin_cache' must have rope_dim = {} columns, has {}", kOp,
                                 opt.rope_dim, cache.size(1)));
  for (std::int64_t t = 0; t < shape.t; ++t) {
    const auto pv = static_cast<std::int64_t>(pos.get({t}));
    if (pv < 0 || pv >= shape.max_pos)
      throw InputError(fmt::format("{}: argument 'positions'[{}] = {} must lie in [0, max_pos = {}) (refused before "
                                   "launch)", kOp, t, pv, shape.max_pos));
  }

  port::DeviceBuffer d_o = upload_contiguous(ot, 4), d_pos = upload_contiguous(pos, 4),
                     d_cs = upload_contiguous(cache, 4);
  // Device layouts: codes [G, T, D] (the logical o_fp8 [T, G, D] with T and G swapped), scales [G, cols, Tal]
  // (the logical o_scale [G, Tal, cols] with its last two axes swapped). The views write through to the outputs.
  Tensor q_dev = outs.at("o_fp8").transpose(0, 1);
  Tensor s_dev = outs.at("o_scale").transpose(1, 2);
  port::DeviceBuffer dq = upload_codes(q_dev, 1), ds = upload_codes(s_dev, 4);

  const InvRopeBuffers io{d_o.data(), d_pos.data(), static_cast<const float*>(d_cs.data()), dq.data(), ds.data()};
  launch_repeated(o, [&](port::Stream& stream) { launch_inv_rope_fp8_quant(plan, io, stream); });
  download_codes(dq, q_dev);
  download_codes(ds, s_dev);

  PlanFields f = plan_fields(kOp, plan);
  f.lds_capacity = arch.lds_bytes_per_block;
  f.tile_map = tile_map_json("o_fp8", 1, "token (one wave per head)", opt.group_size, "group");
  return plan_json(f);
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
  e.plan_sweeps = {inv_rope::inv_rope_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
