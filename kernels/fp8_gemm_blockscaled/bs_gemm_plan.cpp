// Plan of the block-scaled FP8 GEMM kernel; see bs_gemm_plan.hpp.
#include "kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp"

#include <fmt/format.h>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::bsgemm {

const char* variant_name(BsVariant v) {
  switch (v) {
    case BsVariant::fixed: return "default";
    case BsVariant::scale_per_tile: return "scale_per_tile";
    case BsVariant::e8m0_shift23: return "e8m0_shift23";
  }
  return "?";
}

bool parse_variant(const std::string& s, BsVariant& out) {
  for (BsVariant v : {BsVariant::fixed, BsVariant::scale_per_tile, BsVariant::e8m0_shift23})
    if (s == variant_name(v)) {
      out = v;
      return true;
    }
  return false;
}

const char* scale_kind_name(ScaleKind k) {
  switch (k) {
    case ScaleKind::f32: return "fp32";
    case ScaleKind::ue8m0: return "ue8m0";
    case ScaleKind::packed_ue8m0: return "packed_ue8m0";
  }
  return "?";
}

std::size_t lds_bytes_for(int bm, int bn, int k_step) {
  return static_cast<std::size_t>(k_step) * static_cast<std::size_t>(bm + bn + 2 * kLdsPad) * sizeof(float);
}

std::vector<LdsPhase> BsGemmPlan::lds_phases() const {
  return {{"k-step staging (x, w decoded to fp32)", lds_bytes}};
}

std::string BsGemmPlan::describe() const {
  const char* f8 = shape.fp8 == Fp8::e4m3fn ? "e4m3fn" : "e4m3fnuz";
  return fmt::format("fp8_gemm_blockscaled {} batch={} M={} N={} K={} {} x_sf={} w_sf={} w_row_block={} out={}{} "
                     "tile={}x{} k_step={} k_blocks={} grid=[{},{},{}] block={} lds={}/{} B wave={} variant={}{}",
                     port::profile(arch).name, shape.batch, shape.m, shape.n, shape.k, f8, scale_kind_name(shape.x_scale),
                     scale_kind_name(shape.w_scale), shape.w_row_block, shape.out == OutType::bf16 ? "bf16" : "fp32",
                     shape.has_c ? "+c" : "", bm, bn, k_step, k_blocks, grid[0], grid[1], grid[2], block, lds_bytes,
                     lds_capacity, wave_size, variant_name(options.variant), ok ? "" : " REFUSED: " + reason);
}

BsGemmPlan make_plan(const BsGemmShape& shape, const port::ArchProfile& arch, const BsGemmOptions& opt) {
  BsGemmPlan p;
  p.shape = shape;
  p.options = opt;
  p.arch = arch.arch;
  p.arch_fp8 = arch.fp8 == port::Fp8Flavor::fnuz ? Fp8::e4m3fnuz : Fp8::e4m3fn;
  p.wave_size = opt.wave_size ? opt.wave_size : arch.wave_size;
  p.lds_capacity = arch.lds_bytes_per_block;
  p.lds_budget = arch.lds_bytes_per_block / 2;
  if (shape.batch < 0 || shape.m < 0 || shape.n < 0 || shape.k < 0)
    return refuse(p, fmt::format("batch = {}, M = {}, N = {}, K = {} must all be >= 0", shape.batch, shape.m, shape.n, shape.k));
  if (shape.fp8 != p.arch_fp8)
    return refuse(p, fmt::format("{} decodes fp8 as {} (known-bugs #15: the same bits are worth 2x apart); x and w are {}",
                              arch.name, p.arch_fp8 == Fp8::e4m3fnuz ? "E4M3FNUZ" : "E4M3FN (OCP)",
                              shape.fp8 == Fp8::e4m3fnuz ? "E4M3FNUZ" : "E4M3FN"));
  if (shape.w_row_block != 1 && shape.w_row_block != kScaleBlock)
    return refuse(p, fmt::format("w_row_block = {} must be 128 (128x128 weight blocks) or 1 (per-row weight scales)",
                              shape.w_row_block));
  if (shape.has_c && shape.out != OutType::f32)
    return refuse(p, "an fp32 accumulator c requires fp32 output (out_dtype=fp32)");
  if (p.wave_size != 32 && p.wave_size != 64) return refuse(p, fmt::format("wave size {} is not 32 or 64", p.wave_size));

  // Tile rule: the narrowest M tile that covers M (decode shapes waste fewer rows), N tile = 4096 / BM.
  p.bm = shape.m <= 16 ? 16 : (shape.m <= 32 ? 32 : 64);
  p.bn = kBlockThreads * kMicro * kMicro / p.bm;
  p.k_step = 32;
  for (int ks : {128, 64})
    if (lds_bytes_for(p.bm, p.bn, ks) <= p.lds_budget) {
      p.k_step = ks;
      break;
    }
  p.lds_bytes = lds_bytes_for(p.bm, p.bn, p.k_step);
  if (p.lds_bytes > p.lds_capacity)
    return refuse(p, fmt::format("LDS {} B for tile {}x{} k_step {} exceeds {}'s {} B per workgroup", p.lds_bytes, p.bm,
                              p.bn, p.k_step, arch.name, p.lds_capacity));
  p.k_blocks = (shape.k + kScaleBlock - 1) / kScaleBlock;
  p.tiles_m = (shape.m + p.bm - 1) / p.bm;
  p.tiles_n = (shape.n + p.bn - 1) / p.bn;
  p.grid[0] = p.tiles_n;
  p.grid[1] = p.tiles_m;
  p.grid[2] = shape.batch;
  constexpr std::int64_t kMaxYZ = 65535, kMaxX = 2147483647;
  if (p.tiles_m > kMaxYZ) return refuse(p, fmt::format("M-tiles {} (M = {} / {}) exceed grid.y's {}", p.tiles_m, shape.m, p.bm, kMaxYZ));
  if (shape.batch > kMaxYZ) return refuse(p, fmt::format("batch {} exceeds grid.z's {}", shape.batch, kMaxYZ));
  if (p.tiles_n > kMaxX) return refuse(p, fmt::format("N-tiles {} exceed grid.x's {}", p.tiles_n, kMaxX));
  p.workspace_bytes = 0;
  p.ok = true;
  return p;
}

bool can_implement(const BsGemmShape& shape, const port::ArchProfile& arch, const BsGemmOptions& opt) {
  return make_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::bsgemm
