// Host helpers of the block-scaled GEMM runners; see bs_gemm_host.hpp.
#include "kernels/fp8_gemm_blockscaled/bs_gemm_host.hpp"

#include <algorithm>
#include <vector>

#include "kernels/port/sim.hpp"

namespace dsv4::kernels::bsgemm {

DeviceTensor upload(const Tensor& t) {
  bool nonneg = true;
  for (int d = 0; d < t.dim(); ++d) nonneg = nonneg && t.stride(d) >= 0;
  const Tensor src = nonneg ? t : t.contiguous();
  std::int64_t span = src.numel() > 0 ? 1 : 0;
  if (span)
    for (int d = 0; d < src.dim(); ++d) span += (src.size(d) - 1) * src.stride(d);
  DeviceTensor out;
  const std::size_t bytes = static_cast<std::size_t>(span) * src.element_bytes();
  out.buf = port::DeviceBuffer(std::max<std::size_t>(4, bytes));
  if (bytes) out.buf.copy_from_host(src.data(), bytes);
  out.strides = src.strides();
  return out;
}

Fp8 fp8_of(const std::string& op, const std::string& arg, const Tensor& t) {
  if (t.dtype() == DType::F8_E4M3FN) return Fp8::e4m3fn;
  if (t.dtype() == DType::F8_E4M3FNUZ) return Fp8::e4m3fnuz;
  throw InputError(op + ": argument '" + arg + "' must be F8_E4M3FN or F8_E4M3FNUZ");
}

ScaleKind scale_kind_of(const std::string& op, const std::string& arg, const Tensor& sf) {
  switch (sf.dtype()) {
    case DType::F32: return ScaleKind::f32;
    case DType::F8_E8M0: return ScaleKind::ue8m0;
    case DType::I32: return ScaleKind::packed_ue8m0;
    default: break;
  }
  throw InputError(op + ": argument '" + arg + "' must be F32, F8_E8M0 or I32 (packed UE8M0)");
}

BsVariant variant_of(const std::string& op, const RunOptions& o) {
  BsVariant v{};
  if (!parse_variant(o.variant, v)) throw unknown_variant(op, o.variant);
  return v;
}

GemmOperands read_operands(const std::string& op, const OpCase& c, int dims) {
  GemmOperands g{c.in("x"), c.in("w"), c.in("x_sf"), c.in("w_sf")};
  if (g.x.dim() != dims || g.w.dim() != dims || g.x_sf.dim() != dims || g.w_sf.dim() != dims)
    throw InputError(op + ": x, w, x_sf, w_sf must be " + std::to_string(dims) + "-D");
  g.fp8 = fp8_of(op, "x", g.x);
  if (fp8_of(op, "w", g.w) != g.fp8) throw InputError(op + ": argument 'w' must have x's fp8 dtype");
  g.x_scale = scale_kind_of(op, "x_sf", g.x_sf);
  g.w_scale = scale_kind_of(op, "w_sf", g.w_sf);
  if (c.has("c")) g.c = &c.in("c");
  return g;
}

DeviceOperands upload_operands(const GemmOperands& g, int k_dim) {
  DeviceOperands d;
  d.x = upload(g.x.stride(k_dim) == 1 ? g.x : g.x.contiguous());
  d.w = upload(g.w.stride(k_dim) == 1 ? g.w : g.w.contiguous());
  d.x_sf = upload(g.x_sf);
  d.w_sf = upload(g.w_sf);
  if (g.c) d.c = upload(*g.c);
  return d;
}

Json plan_json(const std::string& kernel, const BsGemmPlan& plan, std::int64_t row_tile, const std::string& row_name) {
  Json j = kernels::plan_json({.kernel = kernel,
                               .variant = variant_name(plan.options.variant),
                               .grid = {plan.grid[0], plan.grid[1], plan.grid[2]},
                               .block = plan.block,
                               .wave_size = plan.wave_size,
                               .lds_bytes = lds_json(plan.lds_phases()),
                               .lds_capacity = plan.lds_capacity,
                               .workspace_bytes = plan.workspace_bytes,
                               .tile_map = tile_map_json("d", row_tile, row_name, plan.bn, "N-tile"),
                               .text = plan.describe()});
  j["k_shards"] = plan.k_blocks;
  j["k_shard_size"] = kScaleBlock;
  j["tiles"] = {{"bm", plan.bm}, {"bn", plan.bn}, {"k_step", plan.k_step}, {"k_block", kScaleBlock}};
  j["fp8"] = plan.arch_fp8 == Fp8::e4m3fnuz ? "e4m3fnuz" : "e4m3fn";
  j["promotion"] = "per 128-K block: acc += fl(fl(sx*sw)*P_kb) (fp32 scales), P_kb*2^(ex+ew) exact (UE8M0)";
  return j;
}

}  // namespace dsv4::kernels::bsgemm
