// The skinny GEMM's portable plan (the FMA split-K kernel of skinny_gemm.kernel.cpp on AMD profiles: tiling, CHUNKK
// rule, shard count, LDS phases, workspace), the steps every plan maker shares (skinny_plan_steps.hpp), and make_plan,
// which hands a profile with a registered arch path to that path's plan maker (skinny_arch_layout.hpp) and refuses a
// profile that neither serves. See skinny_plan.hpp.
#include "kernels/skinny_gemm/skinny_plan.hpp"

#include <algorithm>
#include <sstream>

#include "kernels/skinny_gemm/skinny_arch_layout.hpp"
#include "kernels/skinny_gemm/skinny_plan_steps.hpp"

namespace dsv4::kernels::skinny {

const char* variant_name(SkinnyVariant v) {
  switch (v) {
    case SkinnyVariant::fixed: return "fixed";
    case SkinnyVariant::readback_one_pass: return "readback_one_pass";
    case SkinnyVariant::optimistic_workspace_predicate: return "optimistic_workspace_predicate";
    case SkinnyVariant::static_shared_workspace: return "static_shared_workspace";
  }
  return "?";
}
const char* elem_name(ElemType t) { return t == ElemType::bf16 ? "bf16" : "fp16"; }
const char* bias_name(BiasShape b) {
  switch (b) {
    case BiasShape::none: return "none";
    case BiasShape::m: return "[M]";
    case BiasShape::nm: return "[N,M]";
    case BiasShape::one_m: return "[1,M]";
  }
  return "?";
}

namespace plan_steps {

SkinnyPlan refuse(SkinnyPlan p, const std::string& why) {
  p.ok = false;
  p.reason = why;
  return p;
}

std::string shape_refusal(const SkinnyShape& s) {
  if (s.n < 1 || s.n > 128) return "N=" + std::to_string(s.n) + " outside the skinny range 1..128";
  if (s.m < 1) return "M=" + std::to_string(s.m) + " must be >= 1";
  if (s.k < 8 || s.k % kVec != 0) return "K=" + std::to_string(s.k) + " must be a positive multiple of 8";
  if (s.row_stride_a() < s.k || s.row_stride_a() % kVec != 0)
    return "row stride of a (" + std::to_string(s.row_stride_a()) + ") must be >= K=" + std::to_string(s.k) +
           " and a multiple of 8 (16-byte rows)";
  return "";
}

SkinnyPlan plan_of(const SkinnyShape& s, const port::ArchProfile& arch, const SkinnyOptions& opt) {
  SkinnyPlan p;
  p.arch = arch.arch;
  p.shape = s;
  p.options = opt;
  p.lds_capacity = arch.lds_bytes_per_block;
  if (const std::string bad = shape_refusal(s); !bad.empty()) return refuse(p, bad);
  return p;
}

void set_padded_rows(SkinnyPlan& p) {
  p.n_p2 = std::max(16, next_pow2(p.shape.n));
  p.grps_shr_b = std::min(p.n_p2 / 16, 4);
  p.rows_per_n_tile = std::min(p.n_p2, 64);
  p.n_tiles = p.n_p2 / p.rows_per_n_tile;
  p.slice_rows = p.n_p2;
  p.n_slices = 1;
}

void choose_chunkk(SkinnyPlan& p, const port::ArchProfile& arch, int base, bool legacy) {
  // Halve the shard when twice the CUs are free and the halved shard count stays <= 11; never for the 16-row class.
  const std::int64_t shards_base = ceil_div(p.shape.k, base);
  p.cu_needed = p.tiles_m * p.n_slices * shards_base;
  if (p.options.force_chunkk != 0) {
    p.chunkk = p.options.force_chunkk;
  } else {
    const bool cus_free = 2 * p.cu_needed <= arch.compute_units;
    const bool under_cap = legacy || ceil_div(p.shape.k, base / 2) <= kChunkkShardCap;
    p.chunkk = (p.n_p2 > 16 && cus_free && under_cap) ? 2 : 1;
  }
  p.k_chunk = base / p.chunkk;
}

SkinnyPlan finish_split_k(SkinnyPlan p, const port::ArchProfile& arch, std::size_t slab_bytes, std::size_t shard_bytes,
                          bool legacy, bool partials_on_chip) {
  // Readback batches and workspace: none when the partials never leave the chip.
  if (partials_on_chip) {
    p.readback_batch_shards = 0;
    p.readback_batches = 0;
    p.lds_readback = 0;
  } else {
    if (legacy) {
      p.readback_batch_shards = static_cast<int>(p.k_rnd);  // the bug: nothing bounds the staging area
    } else {
      const std::int64_t fit = static_cast<std::int64_t>(p.lds_alloc_bytes / shard_bytes);
      if (fit < 1)
        return refuse(p, "one readback shard (" + std::to_string(shard_bytes) + " B) exceeds the LDS allocation");
      p.readback_batch_shards = static_cast<int>(std::min<std::int64_t>(p.k_rnd, fit));
    }
    p.readback_batches = ceil_div(p.k_rnd, p.readback_batch_shards);
    p.lds_readback = static_cast<std::size_t>(p.readback_batch_shards) * shard_bytes;
  }

  // Workspace: the fixed counter region (one int32 per output tile: M-tile and slice), then k_rnd fp32 slabs.
  const std::int64_t tiles = p.tiles_m * p.n_slices;
  const std::size_t slabs_at = kCounterRegionBytes;
  p.counter_offset = 0;
  if (!partials_on_chip) {
    p.counter_bytes = static_cast<std::size_t>(tiles) * 4;
    if (p.counter_bytes > kCounterRegionBytes)
      return refuse(p, std::to_string(tiles) + " output tiles (" + std::to_string(p.tiles_m) + " M-tiles x " +
                           std::to_string(p.n_slices) + " slices) need " + std::to_string(p.counter_bytes) +
                           " B of counters > the counter region of " + std::to_string(kCounterRegionBytes) + " B");
    p.partial_bytes = static_cast<std::size_t>(p.k_rnd) * tiles * slab_bytes;
    p.workspace_need_bytes = slabs_at + p.partial_bytes;
  }
  if (p.options.variant == SkinnyVariant::optimistic_workspace_predicate)
    p.workspace_bytes = slabs_at + static_cast<std::size_t>(ceil_div(p.shape.k, 512)) * tiles * slab_bytes;
  else
    p.workspace_bytes = p.workspace_need_bytes;

  // Limits.
  if (p.lds_alloc_bytes > arch.lds_bytes_per_block)
    return refuse(p, "LDS allocation " + std::to_string(p.lds_alloc_bytes) + " B exceeds " +
                         std::string(arch.name) + " capacity " + std::to_string(arch.lds_bytes_per_block) + " B");
  for (const auto& ph : p.lds_phases()) {
    if (legacy && ph.name == "readback batch") continue;
    if (ph.bytes > p.lds_alloc_bytes)
      return refuse(p, "LDS phase '" + ph.name + "' needs " + std::to_string(ph.bytes) + " B > allocation " +
                           std::to_string(p.lds_alloc_bytes) + " B");
  }
  if (p.workspace_need_bytes > kMaxWorkspaceBytes)
    return refuse(p, "workspace " + std::to_string(p.workspace_need_bytes) + " B exceeds the limit " +
                         std::to_string(kMaxWorkspaceBytes) + " B");
  if (p.grid > 0x7fffffff) return refuse(p, "grid " + std::to_string(p.grid) + " exceeds 2^31-1 workgroups");
  p.ok = true;
  return p;
}

}  // namespace plan_steps

namespace {

using namespace plan_steps;

std::size_t main_footprint(int rows, int tile_m, int chunk) {
  return static_cast<std::size_t>(rows + tile_m) * static_cast<std::size_t>(chunk + kRowPad) * 2;
}

// The portable FMA kernel's plan (AMD profiles): the whole LDS for the main loop (one workgroup per CU, as
// wvSplitKrc), tile_m = 64 / grps_shr_b output columns per workgroup, 4x4 micro-tiles, one chunk per shard while the
// grid fits one wave of CUs.
SkinnyPlan fma_plan(const SkinnyShape& s, const port::ArchProfile& arch, const SkinnyOptions& opt) {
  SkinnyPlan p = plan_of(s, arch, opt);
  if (!p.reason.empty()) return p;
  if (opt.force_chunkk != 0 && opt.force_chunkk != 1 && opt.force_chunkk != 2)
    return refuse(p, "force_chunkk must be 0, 1 or 2");
  const bool legacy = opt.variant == SkinnyVariant::readback_one_pass;

  set_padded_rows(p);
  const std::int64_t target = arch.compute_units;  // one workgroup per CU
  p.tile_m = 64 / p.grps_shr_b;
  const int slots = p.n_p2 * p.tile_m / (kMicroRows * kMicroCols);
  p.k_groups = kBlockThreads / slots;
  p.tiles_m = ceil_div(s.m, p.tile_m);
  p.m_padded = p.tiles_m * p.tile_m;

  // Base chunk (CHUNKK = 1): the largest whose staging fits the whole LDS.
  const std::size_t budget = arch.lds_bytes_per_block;
  int base = 0;
  for (int c : {512, 256, 128, 64})
    if (main_footprint(p.n_p2, p.tile_m, c) <= budget) {
      base = c;
      break;
    }
  if (base == 0) return refuse(p, "no K chunk fits the main-loop LDS budget of " + std::to_string(budget) + " B");
  choose_chunkk(p, arch, base, legacy);

  // Shards: one chunk per shard (1KPASS) while the grid fits the machine; otherwise several chunks per shard so that
  // the grid is about one full wave of workgroups.
  const std::int64_t chunks = ceil_div(s.k, p.k_chunk);
  if (p.tiles_m * chunks <= target) {
    p.chunks_per_shard = 1;
  } else {
    const std::int64_t want_shards = std::max<std::int64_t>(1, target / p.tiles_m);
    p.chunks_per_shard = static_cast<int>(ceil_div(chunks, want_shards));
  }
  p.k_rnd = ceil_div(chunks, p.chunks_per_shard);
  p.k_shard = static_cast<std::int64_t>(p.chunks_per_shard) * p.k_chunk;
  p.grid = p.tiles_m * p.n_slices * p.k_rnd;
  p.overlap_previous = false;

  // LDS phases (one allocation, the whole LDS; barriers separate them). Readback: the whole tile in one pass.
  p.lds_main = main_footprint(p.n_p2, p.tile_m, p.k_chunk);
  p.lds_kreduce = p.k_groups > 1 ? static_cast<std::size_t>(p.k_groups) * p.n_p2 * p.tile_m * 4 : 0;
  p.readback_pass_outputs = p.n_p2 * p.tile_m;
  p.lds_alloc_bytes = arch.lds_bytes_per_block;
  const std::size_t slab_bytes = static_cast<std::size_t>(p.n_p2) * p.tile_m * 4;
  return finish_split_k(p, arch, slab_bytes, static_cast<std::size_t>(p.readback_pass_outputs) * 4, legacy);
}

// The profiles the portable kernel is built and checked for (the AMD code objects of `dsv4check kernels`).
bool portable_profile(const port::ArchProfile& arch) {
  return arch.arch == port::Arch::gfx942 || arch.arch == port::Arch::gfx950;
}
}  // namespace

SkinnyPlan make_plan(const SkinnyShape& s, const port::ArchProfile& arch, const SkinnyOptions& opt) {
  if (const ArchPath* path = find_arch_path(arch.arch)) return path->make_plan(s, arch, opt);
  if (!portable_profile(arch))
    return plan_steps::refuse(plan_steps::plan_of(s, arch, opt),
                              "no skinny_gemm kernel for " + std::string(arch.name) +
                                  " in this build: the portable kernel serves gfx942 and gfx950, and no arch path "
                                  "is registered for " + std::string(arch.name));
  return fma_plan(s, arch, opt);
}

std::vector<LdsPhase> SkinnyPlan::lds_phases() const {
  return {{"main-loop staging", lds_main}, {"k-group reduction", lds_kreduce}, {"readback batch", lds_readback}};
}

SkinnyTileMap SkinnyPlan::tile_map() const {
  SkinnyTileMap t;
  t.rows_per_n_tile = std::min(rows_per_n_tile, slice_rows);  // a slice's rows are one workgroup's
  t.cols_per_m_tile = tile_m;
  t.k_shards = k_rnd;
  t.k_shard_size = k_shard;
  t.plan = describe();
  return t;
}

std::string SkinnyPlan::describe() const {
  std::ostringstream o;
  o << "skinny_gemm[" << variant_name(options.variant) << "] " << port::profile(arch).name << " N=" << shape.n
    << " M=" << shape.m << " K=" << shape.k << " lda=" << shape.row_stride_a() << " " << elem_name(shape.dtype)
    << " bias=" << bias_name(shape.bias) << ": n_p2=" << n_p2 << " tile_m=" << tile_m << " k_groups=" << k_groups;
  if (arch_layout) o << " " << arch_layout->describe(*this);
  o
    << " CHUNKK=" << chunkk << " k_chunk=" << k_chunk << " chunks/shard=" << chunks_per_shard
    << " k_rnd=" << k_rnd << " readback_pass=" << readback_pass_outputs << " grid=" << grid << "x" << block << " LDS main/kred/readback/alloc=" << lds_main << "/"
    << lds_kreduce << "/" << lds_readback << "/" << lds_alloc_bytes << " batch=" << readback_batch_shards
    << "x" << readback_batches << " workspace=" << workspace_bytes << " (need " << workspace_need_bytes << ")";
  if (!ok && !reason.empty()) o << " REFUSED: " << reason;
  return o.str();
}

std::string SkinnyPlan::layout_text() const { return arch_layout ? arch_layout->describe(*this) : std::string(); }

bool can_implement(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt) {
  return make_plan(shape, arch, opt).ok;
}

std::size_t workspace_size(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt) {
  const SkinnyPlan p = make_plan(shape, arch, opt);
  return p.ok ? p.workspace_bytes : 0;
}

}  // namespace dsv4::kernels::skinny
