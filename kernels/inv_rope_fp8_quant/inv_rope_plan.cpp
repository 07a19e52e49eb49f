// Plan of the fused inverse RoPE + FP8 quantization kernel; see inv_rope_plan.hpp. Recipe, flavour and fp8_max
// are resolved by quant::make_quant_plan (one table for all quant kernels).
#include "kernels/inv_rope_fp8_quant/inv_rope_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::inv_rope {

const char* variant_name(InvRopeVariant v) {
  return v == InvRopeVariant::forward_rotation ? "forward_rotation" : "default";
}

std::optional<InvRopeVariant> parse_inv_rope_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return InvRopeVariant::fixed;
  if (s == "forward_rotation") return InvRopeVariant::forward_rotation;
  return std::nullopt;
}

std::optional<Pairing> parse_pairing(const std::string& s) {
  if (s == "interleaved") return Pairing::interleaved;
  if (s == "neox") return Pairing::neox;
  return std::nullopt;
}

std::string InvRopePlan::describe() const {
  return fmt::format("inv_rope_fp8_quant {} T={} H={} hd={} G={} rope_dim={} pairing={} group={} recipe={} {} "
                     "fp8_max={} layout={} items={} wave={} grid={} block={} variant={}{}",
                     port::profile(arch).name, shape.t, shape.h, shape.head_dim, options.n_groups, options.rope_dim,
                     options.pairing == Pairing::interleaved ? "interleaved" : "neox", options.group_size,
                     options.recipe, fp8 == Fp8::e4m3fn ? "e4m3fn" : "e4m3fnuz", elem_max,
                     options.layout == ScaleLayout::packed_ue8m0 ? "packed_ue8m0" : "mn_major", items, wave_size,
                     grid, block, variant_name(options.variant), ok ? "" : " REFUSED: " + reason);
}

InvRopePlan make_inv_rope_plan(const InvRopeShape& shape, const port::ArchProfile& arch, const InvRopeOptions& opt) {
  InvRopePlan p;
  p.shape = shape;
  p.options = opt;
  p.arch = arch.arch;
  p.wave_size = opt.wave_size ? opt.wave_size : arch.wave_size;
  const std::int64_t T = shape.t, H = shape.h, hd = shape.head_dim, G = opt.n_groups, gs = opt.group_size;
  if (T < 0 || H <= 0 || hd <= 0 || shape.max_pos <= 0)
    return refuse(p, fmt::format("T = {} must be >= 0; H = {}, head dim = {}, max_pos = {} must be > 0", T, H, hd,
                              shape.max_pos));
  if (G <= 0 || H % G != 0) return refuse(p, fmt::format("n_groups = {} must be > 0 and divide H = {}", G, H));
  if (opt.rope_dim <= 0 || opt.rope_dim % 2 != 0 || opt.rope_dim > hd)
    return refuse(p, fmt::format("rope_dim = {} must be even, > 0 and <= head dim {}", opt.rope_dim, hd));
  if (gs <= 0 || hd % gs != 0) return refuse(p, fmt::format("group_size = {} must divide the head dim {}", gs, hd));
  if (opt.layout == ScaleLayout::row_major)
    return refuse(p, "scale_layout row_major is not an inv_rope_fp8_quant layout (mn_major or packed_ue8m0)");
  if (opt.layout == ScaleLayout::packed_ue8m0 && hd != 4 * gs)
    return refuse(p, fmt::format("scale_layout packed_ue8m0 packs the 4 groups of a head into one word: needs head dim "
                              "{} = 4·group_size {}", hd, 4 * gs));
  if (T * H * hd > (std::int64_t{1} << 40)) return refuse(p, "T*H*head_dim exceeds 2^40 elements");

  quant::QuantShape qs;
  qs.m = T * G;
  qs.k = (H / G) * hd;
  const quant::QuantPlan qp = quant::make_quant_plan(qs, arch, quant::recipe_options(opt, p.wave_size));
  quant::copy_resolved_recipe(p, qp);
  if (!qp.ok) return refuse(p, qp.reason);

  p.heads_per_group = H / G;
  p.d = p.heads_per_group * hd;
  p.groups_per_head = hd / gs;
  p.scale_cols = opt.layout == ScaleLayout::packed_ue8m0 ? p.heads_per_group : p.d / gs;
  p.t_aligned = (T + 3) / 4 * 4;
  p.items = T * H;
  p.waves_per_block = kInvRopeBlockThreads / p.wave_size;
  p.grid = std::clamp<std::int64_t>((p.items + p.waves_per_block - 1) / p.waves_per_block, 1,
                                    std::int64_t{arch.compute_units} * 64);
  p.out_bytes = static_cast<std::size_t>(T * H * hd);
  p.scale_bytes = static_cast<std::size_t>(G * p.scale_cols * p.t_aligned) * 4;
  p.ok = true;
  return p;
}

bool can_implement(const InvRopeShape& shape, const port::ArchProfile& arch, const InvRopeOptions& opt) {
  return make_inv_rope_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::inv_rope
