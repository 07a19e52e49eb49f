// Plan of the FP8 dequantization kernel; see dequant_plan.hpp.
#include "kernels/dequant_fp8/dequant_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::dequant {

std::string DequantPlan::describe() const {
  static const char* const st[] = {"f32", "e8m0", "packed_ue8m0"};
  return fmt::format("dequant_fp8 {} M={} K={} {} scales={} {} {} group={} out={} grid={} block={} variant={}{}",
                     port::profile(arch).name, shape.m, shape.k, fp8 == Fp8::e4m3fn ? "e4m3fn" : "e4m3fnuz",
                     st[static_cast<int>(options.scale_type)],
                     options.granularity == Granularity::block ? "block" : "token_group",
                     options.layout == ScaleLayout::row_major ? "row_major" : "mn_major", options.group_size,
                     options.out == OutType::bf16 ? "bf16" : "f32", grid, block,
                     options.variant == DequantVariant::shift23 ? "shift23" : "default",
                     ok ? "" : " REFUSED: " + reason);
}

DequantPlan make_dequant_plan(const DequantShape& shape, const port::ArchProfile& arch, const DequantOptions& opt) {
  DequantPlan p;
  p.shape = shape;
  p.options = opt;
  p.arch = arch.arch;
  p.fp8 = opt.fp8.value_or(arch.fp8 == port::Fp8Flavor::fnuz ? Fp8::e4m3fnuz : Fp8::e4m3fn);
  if (shape.m < 0 || shape.k < 0) return refuse(p, fmt::format("M = {} and K = {} must be >= 0", shape.m, shape.k));
  if (opt.group_size <= 0 || opt.group_size > kDequantMaxGroup)
    return refuse(p, fmt::format("group_size = {} must lie in [1, {}]", opt.group_size, kDequantMaxGroup));
  if (opt.layout == ScaleLayout::packed_ue8m0)
    return refuse(p, "scale layout packed_ue8m0 is a scale type (ScaleType::packed_ue8m0, MN-major words), not a layout");
  if (opt.scale_type == ScaleType::packed_ue8m0 && opt.layout != ScaleLayout::mn_major)
    return refuse(p, "packed_ue8m0 scales are MN-major words [ceil(G/4), align(R,4)]: layout must be mn_major");
  if (shape.m * shape.k > (std::int64_t{1} << 40)) return refuse(p, "M*K exceeds 2^40 elements");
  const std::int64_t gs = opt.group_size;
  p.groups = (shape.k + gs - 1) / gs;
  p.scale_rows = opt.granularity == Granularity::block ? (shape.m + gs - 1) / gs : shape.m;
  p.scale_cols = opt.scale_type == ScaleType::packed_ue8m0 ? (p.groups + 3) / 4 : p.groups;
  p.scale_ld = opt.layout == ScaleLayout::row_major ? p.scale_cols : (p.scale_rows + 3) / 4 * 4;
  p.scale_elem_bytes = opt.scale_type == ScaleType::e8m0 ? 1 : 4;
  p.scale_bytes = static_cast<std::size_t>(opt.layout == ScaleLayout::row_major ? p.scale_rows * p.scale_cols
                                                                                : p.scale_ld * p.scale_cols) *
                  p.scale_elem_bytes;
  p.elements = shape.m * shape.k;
  p.out_bytes = static_cast<std::size_t>(p.elements) * (opt.out == OutType::bf16 ? 2 : 4);
  p.grid = std::clamp<std::int64_t>((p.elements + p.block - 1) / p.block, 1, std::int64_t{arch.compute_units} * 32);
  p.ok = true;
  return p;
}

bool can_implement(const DequantShape& shape, const port::ArchProfile& arch, const DequantOptions& opt) {
  return make_dequant_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::dequant
