// Plan of the KV-cache writer; see kv_write_plan.hpp.
#include "kernels/kv_cache_write/kv_write_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::kvw {

const char* layout_name(Layout l) { return l == Layout::v32 ? "V32_FP8Sparse" : "MODEL1_FP8Sparse"; }

const char* recipe_name(Recipe r) {
  switch (r) {
    case Recipe::flashmla_kv_test: return "flashmla-kv-test";
    case Recipe::vllm_v4_kv: return "vllm-v4-kv";
    case Recipe::plain_fp32: return "plain-fp32";
  }
  return "?";
}

const char* variant_name(KvWriteVariant v) {
  return v == KvWriteVariant::python_negative_slot ? "python_negative_slot" : "default";
}

std::optional<Recipe> parse_recipe(const std::string& s) {
  if (s == "flashmla-kv-test") return Recipe::flashmla_kv_test;
  if (s == "vllm-v4-kv") return Recipe::vllm_v4_kv;
  if (s == "plain-fp32") return Recipe::plain_fp32;
  return std::nullopt;
}

std::optional<KvWriteVariant> parse_kv_write_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return KvWriteVariant::fixed;
  if (s == "python_negative_slot") return KvWriteVariant::python_negative_slot;
  return std::nullopt;
}

double KvWritePlan::bytes_moved() const {
  const double in = static_cast<double>(shape.n_tokens) *
                    (d_qk * (shape.kv == KvType::bf16 ? 2.0 : 4.0) + (shape.slot == SlotType::i64 ? 8.0 : 4.0));
  return in + static_cast<double>(shape.n_tokens) * bytes_per_token;
}

std::string KvWritePlan::describe() const {
  return fmt::format("kv_cache_write {} {} tokens={} blocks={}x{} stride={} kv={} slots={} recipe={} {} fp8_max={} "
                     "wave={} quads/tile={} grid={} block={} variant={}{}",
                     port::profile(arch).name, layout_name(shape.layout), shape.n_tokens, shape.num_blocks,
                     shape.block_size, block_stride, shape.kv == KvType::bf16 ? "bf16" : "f32",
                     shape.slot == SlotType::i64 ? "i64" : "i32", recipe_name(options.recipe),
                     options.fp8 == Fp8::e4m3fn ? "e4m3fn" : "e4m3fnuz", fp8_max, wave_size, quads_per_tile, grid,
                     block, variant_name(options.variant), ok ? "" : " REFUSED: " + reason);
}

KvWritePlan make_kv_write_plan(const KvWriteShape& shape, const port::ArchProfile& arch, const KvWriteOptions& opt) {
  KvWritePlan p;
  p.shape = shape;
  p.options = opt;
  p.arch = arch.arch;
  p.wave_size = opt.wave_size ? opt.wave_size : arch.wave_size;
  const bool v32 = shape.layout == Layout::v32;
  p.d_qk = v32 ? 576 : 512;
  p.d_nope = v32 ? 512 : 448;
  p.d_rope = 64;
  p.tile = v32 ? 128 : 64;
  p.n_tiles = v32 ? 4 : 7;
  p.bytes_per_token = v32 ? 656 : 584;
  p.quads_per_tile = p.tile / 4;
  p.nope_quads = p.d_nope / 4;
  p.block_bytes_needed = shape.block_size * p.bytes_per_token;
  const std::int64_t padded = v32 ? p.block_bytes_needed : (p.block_bytes_needed + 575) / 576 * 576;
  p.block_stride = shape.block_stride ? shape.block_stride : padded;
  p.kv_ld = shape.kv_ld ? shape.kv_ld : p.d_qk;
  p.num_slots = shape.num_blocks * shape.block_size;

  if (shape.n_tokens < 0) return refuse(p, fmt::format("n_tokens = {} must be >= 0", shape.n_tokens));
  if (shape.num_blocks < 0 || shape.block_size < 1)
    return refuse(p, fmt::format("num_blocks = {} must be >= 0 and block_size = {} >= 1", shape.num_blocks,
                              shape.block_size));
  if (p.wave_size != 32 && p.wave_size != 64)
    return refuse(p, fmt::format("wave size {} is not 32 or 64 (a tile of {} quads must divide the wave)", p.wave_size,
                              p.quads_per_tile));
  if (p.block_stride < p.block_bytes_needed)
    return refuse(p, fmt::format("block stride {} B is below the {} B a block of {} tokens needs ({})", p.block_stride,
                              p.block_bytes_needed, shape.block_size, layout_name(shape.layout)));
  if (p.block_stride % 4 != 0)
    return refuse(p, fmt::format("block stride {} B must be a multiple of 4 (codes, scales and RoPE are stored as "
                              "aligned 32-bit words)", p.block_stride));
  if (p.kv_ld < p.d_qk || p.kv_ld % 4 != 0)
    return refuse(p, fmt::format("kv row stride {} must be >= d_qk = {} and a multiple of 4 elements (vector loads)",
                              p.kv_ld, p.d_qk));
  if (opt.recipe == Recipe::plain_fp32 && !v32)
    return refuse(p, "scale_recipe plain-fp32 gives scales that are not powers of two; MODEL1 stores UE8M0 scales");
  if (opt.recipe == Recipe::flashmla_kv_test && opt.fp8 == Fp8::e4m3fnuz)
    return refuse(p, "scale_recipe flashmla-kv-test is defined for e4m3fn only");
  if (shape.num_blocks * p.block_stride > (std::int64_t{1} << 40))
    return refuse(p, "cache bytes exceed 2^40");
  p.fp8_max = opt.fp8 == Fp8::e4m3fnuz ? 224.f : 448.f;
  p.saturate = opt.recipe != Recipe::flashmla_kv_test;
  p.waves_per_block = kKvWriteBlockThreads / p.wave_size;
  p.grid = std::clamp<std::int64_t>((shape.n_tokens + p.waves_per_block - 1) / p.waves_per_block, 1,
                                    std::int64_t{arch.compute_units} * 32);
  p.ok = true;
  return p;
}

bool can_implement(const KvWriteShape& shape, const port::ArchProfile& arch, const KvWriteOptions& opt) {
  return make_kv_write_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::kvw
