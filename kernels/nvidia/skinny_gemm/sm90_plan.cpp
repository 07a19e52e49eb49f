// The sm_90 plan of the skinny GEMM (sm90_plan.hpp): the split-K tensor-core kernels' layouts under the time model,
// the producer-warp kernel's plan and rules, and the cluster admission table. The steps it shares with the portable
// plan (admission, CHUNKK rule, readback, workspace, limits) are kernels/skinny_gemm/skinny_plan_steps.hpp.
#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"

#include <algorithm>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kernels/skinny_gemm/skinny_plan_steps.hpp"

namespace dsv4::kernels::skinny {

namespace {

using namespace plan_steps;

// MMA path, with `wm` warps along M: k-groups, K panels per stage (kMmaMinPanels, fewer while the ring would
// not fit the budget, never fewer than the k-groups or 2), and the LDS of the ring and of the k-group reduction.
int mma_k_groups(const SkinnyPlan& p, const Sm90Layout& l, int wm) {
  return l.wgmma ? kBlockThreads / 128 / wm : kBlockThreads / 32 / (wm * l.mma_warps_n);
}
std::size_t mma_ring_bytes(const SkinnyPlan& p, const Sm90Layout& l, int wm, int panels) {
  const int rows = 16 * l.mma_m_tiles * wm + 8 * l.mma_n_blocks * l.mma_warps_n;
  if (l.wgmma)  // swizzled panels of 128-byte rows (a multiple of 1 KiB each), the ring's alignment slack and
    return static_cast<std::size_t>(l.mma_stages) * panels * rows * kWgmmaPanelK * 2 + kWgmmaAlignSlack +
           static_cast<std::size_t>(l.mma_stages) * 8;  // one 8-byte transaction barrier per slot
  return static_cast<std::size_t>(l.mma_stages) * panels * (rows + 1) * kMmaPanelK * 2;
}
// Workgroups per SM the plan counts on (l.mma_warps_m set): the instance's build; a warpgroup instance built for
// two runs one per SM when even its smallest ring (one panel per k-group) exceeds the two-per-SM LDS budget.
int mma_built_blocks_per_sm(const SkinnyPlan& p, const Sm90Layout& l) {
  if (!l.wgmma) return mma_blocks_per_sm(l.mma_n_blocks, l.mma_m_tiles);
  const int built = wgmma_blocks_per_sm(l.mma_n_blocks, l.mma_m_tiles / 4);
  const bool two_fit = mma_ring_bytes(p, l, l.mma_warps_m, mma_k_groups(p, l, l.mma_warps_m)) <= mma_lds_budget(2);
  return built == 2 && two_fit ? 2 : 1;
}
std::size_t mma_budget(const SkinnyPlan& p, const Sm90Layout& l) { return mma_lds_budget(l.mma_resident); }
int mma_panels(const SkinnyPlan& p, const Sm90Layout& l, int wm) {
  const int floor = l.wgmma ? mma_k_groups(p, l, wm) : std::max(2, mma_k_groups(p, l, wm));
  int panels = l.wgmma ? kWgmmaMaxPanels : std::max(kMmaMinPanels, floor);
  while (panels > floor && mma_ring_bytes(p, l, wm, panels) > mma_budget(p, l)) panels /= 2;
  return panels;
}
std::size_t mma_kreduce_bytes(const SkinnyPlan& p, const Sm90Layout& l, int wm) {
  const int kg = mma_k_groups(p, l, wm);
  return kg > 1 ? static_cast<std::size_t>(kg) * p.n_p2 * 16 * l.mma_m_tiles * wm * 4 : 0;
}
std::size_t mma_lds_need(const SkinnyPlan& p, const Sm90Layout& l, int wm) {
  return std::max(mma_ring_bytes(p, l, wm, mma_panels(p, l, wm)), mma_kreduce_bytes(p, l, wm));
}

// Workgroups of 256 threads that can run at once in clusters of `size` (2..8) at `per_sm` per SM: what
// cudaOccupancyMaxActiveClusters reports on the H200 (132 SMs; a cluster's workgroups must share a GPC, and the GPCs
// hold 16 or 18 SMs), scaled to the profile's SM count. One per SM: 132, 132, 117, 120, 110, 102, 105, 120 for sizes
// 1..8 (sizes 7 and 8 fit 15 clusters); two per SM: 264, 264, 237, 248, 235, 234, 224, 240.
std::int64_t cluster_slots(int size, int per_sm, int sms) {
  static constexpr int one[9] = {0, 132, 132, 117, 120, 110, 102, 105, 120};
  static constexpr int two[9] = {0, 264, 264, 237, 248, 235, 234, 224, 240};
  const int c = std::clamp(size, 1, 8);
  const std::int64_t h200 = per_sm >= 2 ? two[c] : one[c];
  return std::max<std::int64_t>(c, h200 * sms / 132 / c * c);
}

// Cluster reduction is admitted when all of the plan's clusters run at once: a cluster's workgroups hold their SMs
// until the slowest of them is done, and clusters of a later wave wait for a whole group of free SMs in one GPC
// (measured: bench/kernels/RESULTS_skinny_h200.md).
bool cluster_one_wave(const SkinnyPlan& p, const Sm90Layout& l, std::int64_t shards, int sms) {
  return p.tiles_m * p.n_slices * shards <= cluster_slots(static_cast<int>(shards), l.mma_resident, sms);
}

// Tensor-core paths: layout and chunks per shard minimising SkinnyTimeModel (skinny_plan.hpp: its terms and the
// fit). mma_cost is the model for one shard length (chunks per shard); mma_chunks_per_shard picks the cheapest.
double mma_cost(const SkinnyPlan& p, const Sm90Layout& l, std::int64_t chunks, std::int64_t cps, int sms, const SkinnyTimeModel& tm = {}) {
  const std::int64_t outs = static_cast<std::int64_t>(p.n_p2) * p.tile_m;
  const std::int64_t np = 8LL * l.mma_n_blocks * l.mma_warps_n;
  const int built = l.mma_resident;
  const double mma_rate = l.wgmma ? tm.wgmma_per_sm_per_us : tm.mma_per_sm_per_us;
  const double stage_bytes = static_cast<double>(mma_ring_bytes(p, l, l.mma_warps_m, l.mma_panels)) / l.mma_stages;
  double rate_cap_gbs = (l.mma_stages - 1) * stage_bytes / 1e3 / tm.latency_us;  // bytes in flight / latency
  if (l.wgmma) rate_cap_gbs = std::min(rate_cap_gbs, tm.wgmma_block_gbs);
  const std::int64_t shards = ceil_div(chunks, cps);
  const std::int64_t tiles = p.tiles_m * p.n_slices;
  const std::int64_t blocks = tiles * shards;
  const bool cluster = l.cluster_reduce && shards > 1;  // admitted in one wave of clusters only
  const std::int64_t slots = static_cast<std::int64_t>(sms) * built;
  const std::int64_t waves = ceil_div(blocks, slots);
  const std::int64_t concurrent = std::min(blocks, slots);
  const double on_sm = static_cast<double>(ceil_div(concurrent, sms));
  const double k_elems = static_cast<double>(cps) * p.k_chunk;
  const double b_weight = (1.0 + tm.b_reread_weight * (p.n_slices - 1)) / p.n_slices;  // b shared by the slices
  const double bytes = k_elems * 2.0 * (p.tile_m * b_weight + (l.wgmma ? tm.a_weight_wgmma : tm.a_weight) * np);
  const double rate_gbs = std::min(tm.copy_gbs / concurrent, rate_cap_gbs);
  const double mem_us = bytes / 1e3 / rate_gbs;
  const double mmas = (p.tile_m / 16.0) * (np / 8.0) * (k_elems / 16.0);
  const double mma_us = mmas * on_sm / mma_rate;
  double cost = static_cast<double>(waves) * (std::max(mem_us, mma_us) + tm.block_us);
  if (cluster)  // partials stay in LDS; the cluster barriers and the exchange of every shard's partial
    cost += tm.cluster_tail_us + static_cast<double>(shards * outs) * 4 / 1e3 / tm.cluster_gbs;
  else if (shards > 1)  // + the partials' traffic, + the last arriver reading every shard's slab alone
    cost += tm.tail_us + static_cast<double>(shards * tiles * outs) * 8 / 1e3 / tm.copy_gbs +
            static_cast<double>(shards * outs) * 4 / 1e3 / tm.readback_gbs;
  return cost;
}

struct SplitChoice {
  int chunks_per_shard;
  double cost;
};
// A cluster-reduced plan takes 2..max_cluster shards only (returns chunks_per_shard 0 when none exists).
SplitChoice mma_chunks_per_shard(const SkinnyPlan& p, const Sm90Layout& l, std::int64_t chunks, int sms, int max_cluster) {
  const std::int64_t outs = static_cast<std::int64_t>(p.n_p2) * p.tile_m;
  double best_cost = 0;
  int best = l.cluster_reduce ? 0 : static_cast<int>(chunks);
  for (std::int64_t cps = chunks; cps >= 1; --cps) {
    const std::int64_t shards = ceil_div(chunks, cps);
    if (!shortest_shard_of_its_count(chunks, cps)) continue;
    if (l.cluster_reduce && (shards < 2 || shards > max_cluster || !cluster_one_wave(p, l, shards, sms))) {
      if (shards > max_cluster) break;
      continue;
    }
    if (kCounterRegionBytes + static_cast<std::size_t>(shards * p.tiles_m * p.n_slices * outs * 4) > kMaxWorkspaceBytes)
      break;
    const double cost = mma_cost(p, l, chunks, cps, sms);
    if (best == 0 || cps == chunks || cost < best_cost) {
      best_cost = cost;
      best = static_cast<int>(cps);
    }
  }
  return {best, best_cost};
}

// Options that force a layout of the split-K kernels only (the producer-warp kernel has one layout per shape and
// shard count).
bool forces_a_split_k_layout(const Sm90Options& o) {
  return o.force_chunkk != 0 || o.force_warps_m != 0 || o.force_m_tiles != 0 || o.force_resident != 0 ||
         o.force_cluster_reduce == 1;
}
// Options that force any layout (the plan's own choice is then not the producer-warp kernel's rule).
bool forces_a_layout(const Sm90Options& o) {
  return forces_a_split_k_layout(o) || o.force_chunks_per_shard != 0 || o.force_slice_rows != 0 ||
         o.force_pw_tile_m != 0 || o.force_cluster_reduce == 2;
}

// Whether a producer-warp grid of `tiles` workgroups fills at least 3/4 of the SMs.
bool pw_grid_mostly_full(std::int64_t tiles, const port::ArchProfile& arch) {
  return 4 * tiles >= 3 * static_cast<std::int64_t>(arch.compute_units);
}
// Whether it fills at least SMs / kPwMinGridDivisor.
bool pw_grid_quarter_full(std::int64_t tiles, const port::ArchProfile& arch) {
  return kPwMinGridDivisor * tiles >= arch.compute_units;
}
// The producer-warp kernel's rule without a split (skinny_plan.hpp): a grid of 3/4 of the SMs, or for at most
// kPwMaxRowsPartialGrid padded rows of a a quarter of them with K <= kPwMaxKPartialGrid.
bool pw_unsplit_preferred(const SkinnyShape& s, std::int64_t tiles, const port::ArchProfile& arch) {
  return pw_grid_mostly_full(tiles, arch) ||
         (wgmma_unsliced_rows(s.n) <= kPwMaxRowsPartialGrid && pw_grid_quarter_full(tiles, arch) &&
          s.k <= kPwMaxKPartialGrid);
}
// Its rule with output-row slices: more than kPwSliceRows padded rows of a, K < kPwMinKSplit, and at least
// kPwSliceMinTiles but fewer than SMs / kPwMinGridDivisor 64-row tiles: kPwSliceRows rows of a per workgroup.
bool pw_sliced_preferred(const SkinnyShape& s, std::int64_t tiles, const port::ArchProfile& arch) {
  return wgmma_unsliced_rows(s.n) > kPwSliceRows && s.k < kPwMinKSplit && tiles >= kPwSliceMinTiles &&
         !pw_grid_quarter_full(tiles, arch);
}
// Its rule with kPwMaxRowsPartialGrid-row slices and a cluster split of K: more padded rows of a than that,
// kPwMinKSplit <= K <= kPwMaxKPartialGrid, and kPwSliceMinTiles to SMs / kPwMinGridDivisor 64-row tiles.
bool pw_sliced_split_preferred(const SkinnyShape& s, std::int64_t tiles, const port::ArchProfile& arch) {
  return wgmma_unsliced_rows(s.n) > kPwMaxRowsPartialGrid && s.k >= kPwMinKSplit && s.k <= kPwMaxKPartialGrid &&
         tiles >= kPwSliceMinTiles && !pw_grid_quarter_full(tiles, arch);
}
// Its rule with a cluster split of K: the tiles leave at least half the SMs idle, K >= kPwMinKSplit, the rule
// without a split does not apply, and for more than kPwMaxRowsPartialGrid rows of a the grid is a quarter of the SMs.
bool pw_split_preferred(const SkinnyShape& s, std::int64_t tiles, const port::ArchProfile& arch) {
  if (2 * tiles > arch.compute_units || s.k < kPwMinKSplit || pw_unsplit_preferred(s, tiles, arch)) return false;
  return wgmma_unsliced_rows(s.n) <= kPwMaxRowsPartialGrid || pw_grid_quarter_full(tiles, arch);
}

// Its wide tile's rule (kPwWideTileM): a grid of 64-row tiles of at least 3/4 of the SMs, at most kPwWideMaxRows
// padded rows of a, and rows of a x K at most kPwWideMaxRowsK (one unsliced, unsplit workgroup per 128 rows of b).
bool pw_wide_preferred(const SkinnyShape& s, std::int64_t tiles, const port::ArchProfile& arch) {
  const std::int64_t rows = wgmma_unsliced_rows(s.n);
  return pw_grid_mostly_full(tiles, arch) && rows <= kPwWideMaxRows && rows * s.k <= kPwWideMaxRowsK;
}

// The producer-warp kernel's plan (skinny_plan.hpp, kPwTileM): grid ceil(M / tile_m) x slices x shards, the ring by pw_ring. K is
// split (a cluster of k_rnd workgroups per tile, no workspace) when forced (force_chunks_per_shard: steps of the
// ring per shard) or by pw_split_preferred: then into the most shards (up to 8, at most the steps) whose clusters
// all run in one wave (cluster_slots). One shard: the kernel stores straight to the output.
SkinnyPlan producer_warp_plan(Sm90Layout& l, const SkinnyShape& s, const port::ArchProfile& arch,
                              const Sm90Options& opt) {
  SkinnyPlan p = plan_of(s, arch, opt);
  if (!p.reason.empty()) return p;
  if (arch.arch != port::Arch::sm_90)
    return refuse(p, std::string("the producer-warp kernel (force_kernel=producer_warp) runs on sm_90 only, not ") + std::string(arch.name));
  if (opt.variant != SkinnyVariant::fixed)
    return refuse(p, "the bug-zoo variants run the split-K kernels, not the producer-warp kernel");
  if (forces_a_split_k_layout(opt))
    return refuse(p, "the producer-warp kernel has one layout per shape and shard count: no force_chunkk, "
                     "force_warps_m, force_m_tiles, force_resident or workspace reduction");
  // Rows of a per workgroup: all of the padded N, or force_slice_rows (output-row slices, as the warpgroup kernel's).
  const int all_rows = wgmma_unsliced_rows(s.n);
  const std::int64_t tiles = ceil_div(s.m, kPwTileM);
  const bool sliced_split = opt.force_slice_rows == 0 && opt.force_chunks_per_shard == 0 &&
                            pw_sliced_split_preferred(s, tiles, arch);
  const int rows = opt.force_slice_rows != 0           ? opt.force_slice_rows
                   : pw_sliced_preferred(s, tiles, arch) ? kPwSliceRows
                   : sliced_split                        ? kPwMaxRowsPartialGrid
                                                         : all_rows;
  if (rows < 8 || rows > all_rows || (rows & (rows - 1)) != 0)
    return refuse(p, "slice_rows=" + std::to_string(rows) + " must be a power of two from 8 to the padded N (" +
                         std::to_string(all_rows) + ")");
  // Rows of b per workgroup: kPwTileM, or the wide tile when forced (force_pw_tile_m) or by its rule (no other
  // layout option forced; then one shard).
  const bool wide_by_rule = opt.force_pw_tile_m == 0 && opt.force_slice_rows == 0 && opt.force_chunks_per_shard == 0 &&
                            pw_wide_preferred(s, tiles, arch);
  const int tm = opt.force_pw_tile_m != 0 ? opt.force_pw_tile_m : wide_by_rule ? kPwWideTileM : kPwTileM;
  if (tm != kPwTileM && tm != kPwWideTileM)
    return refuse(p, "force_pw_tile_m=" + std::to_string(tm) + ": the producer-warp kernel takes " +
                         std::to_string(kPwTileM) + " or " + std::to_string(kPwWideTileM) + " rows of b per workgroup");
  l.mma = true;
  l.producer_warp = true;
  p.n_p2 = std::max(16, rows);
  p.slice_rows = rows;
  p.n_slices = static_cast<int>(ceil_div(s.n, rows));
  p.tile_m = tm;
  p.tiles_m = ceil_div(s.m, tm);
  p.m_padded = p.tiles_m * tm;
  const std::int64_t units = p.tiles_m * p.n_slices;  // output tiles: workgroups per shard
  l.mma_warps_m = 1;
  l.mma_warps_n = 1;
  l.mma_m_tiles = tm / 16;
  l.mma_n_blocks = rows / 8;
  l.mma_resident = 1;
  l.mma_model_cost = -1;  // not the model's choice
  p.k_groups = tm == kPwTileM ? 2 : 1;  // the wide tile: each warpgroup its 64 rows of b, every step
  const bool deep = s.k % kWgmmaPanelK != 0 || pw_grid_mostly_full(units, arch);
  const PwRing ring = pw_ring(rows, !deep, tm);
  l.mma_stages = ring.stages;
  l.mma_panels = ring.panels;
  p.k_chunk = ring.panels * kWgmmaPanelK;  // one step of the ring
  // K-shards (pw_shards): a cluster per tile, the shards' partials summed from each other's LDS.
  const std::int64_t steps = ceil_div(s.k, p.k_chunk);
  const int max_cluster = std::min(arch.max_cluster_blocks, kMaxClusterShards);
  std::int64_t shards = 1;
  if (opt.force_chunks_per_shard > 0) {
    shards = ceil_div(steps, std::min<std::int64_t>(opt.force_chunks_per_shard, steps));
  } else if (!wide_by_rule && (sliced_split || pw_split_preferred(s, units, arch))) {
    // the most shards whose clusters run in one wave
    for (std::int64_t c = std::min<std::int64_t>(max_cluster, steps); c >= 2 && shards == 1; --c)
      if (units * c <= cluster_slots(static_cast<int>(c), 1, arch.compute_units)) shards = c;
  }
  p.chunks_per_shard = static_cast<int>(ceil_div(steps, shards));
  p.k_rnd = ceil_div(steps, p.chunks_per_shard);
  p.k_shard = static_cast<std::int64_t>(p.chunks_per_shard) * p.k_chunk;
  if (p.k_rnd > max_cluster)
    return refuse(p, "producer-warp split of " + std::to_string(p.k_rnd) + " K-shards: a cluster holds at most " +
                         std::to_string(max_cluster) + " workgroups on " + std::string(arch.name));
  if (p.k_rnd > 1 && units * p.k_rnd > cluster_slots(static_cast<int>(p.k_rnd), 1, arch.compute_units))
    return refuse(p, "producer-warp split: " + std::to_string(units) + " clusters of " + std::to_string(p.k_rnd) +
                         " do not run in one wave (" +
                         std::to_string(cluster_slots(static_cast<int>(p.k_rnd), 1, arch.compute_units)) +
                         " workgroups at once)");
  l.cluster_reduce = p.k_rnd > 1;
  l.cluster_blocks = static_cast<int>(p.k_rnd);
  p.cu_needed = units * p.k_rnd;
  p.grid = units * p.k_rnd;
  p.block = kPwThreads;
  p.overlap_previous = opt.overlap_previous;
  p.lds_main = static_cast<std::size_t>(ring.stages) * ring.panels * (tm + rows) * kWgmmaPanelK * 2 +
               kWgmmaAlignSlack + static_cast<std::size_t>(ring.stages) * 16;  // full and empty barriers
  // The epilogue: the k-group exchange (tile_m = 64 only) and the transposed output tile.
  const int exchange = tm == kPwTileM ? kPwTileM * pw_red_stride(rows) : 0;
  p.lds_kreduce = static_cast<std::size_t>(exchange + rows * pw_tile_stride(tm)) * 4 + kWgmmaAlignSlack;
  p.readback_pass_outputs = std::min(p.n_p2 * p.tile_m, kReadbackPassOutputs);  // (no readback: the MMA path's)
  p.rows_per_n_tile = p.readback_pass_outputs / p.tile_m;
  p.n_tiles = p.n_p2 / p.rows_per_n_tile;
  const std::size_t slab_bytes = static_cast<std::size_t>(p.n_p2) * p.tile_m * 4;
  p.readback_batch_shards = l.cluster_reduce ? 0 : 1;
  p.readback_batches = l.cluster_reduce ? 0 : 1;
  p.lds_readback = 0;  // nothing is read back
  p.lds_alloc_bytes = std::max(p.lds_main, p.lds_kreduce);
  if (!l.cluster_reduce) {  // a one-shard plan reserves what every one-shard plan does (the kernel uses none)
    p.counter_bytes = static_cast<std::size_t>(units) * 4;
    p.partial_bytes = slab_bytes * static_cast<std::size_t>(units);
    p.workspace_need_bytes = kCounterRegionBytes + p.partial_bytes;
  }
  p.workspace_bytes = p.workspace_need_bytes;
  if (p.lds_alloc_bytes > arch.lds_bytes_per_block)
    return refuse(p, "LDS allocation " + std::to_string(p.lds_alloc_bytes) + " B exceeds " + std::string(arch.name) +
                         " capacity " + std::to_string(arch.lds_bytes_per_block) + " B");
  if (p.counter_bytes > kCounterRegionBytes || p.workspace_need_bytes > kMaxWorkspaceBytes)
    return refuse(p, std::to_string(p.tiles_m) + " M-tiles need " + std::to_string(p.workspace_need_bytes) +
                         " B of workspace > the limit " + std::to_string(kMaxWorkspaceBytes) + " B");
  if (p.grid > 0x7fffffff) return refuse(p, "grid " + std::to_string(p.grid) + " exceeds 2^31-1 workgroups");
  p.ok = true;
  return p;
}

// A split-K kernel's plan: the m16n8k16 kernel with `mma_wm` warps along M and `mma_mt` 16-row tiles of b per warp,
// or the warpgroup kernel (`wgmma`) with `slice_rows` rows of a per workgroup (0: all of the padded N), at most
// `resident_cap` workgroups per SM, its shards reduced through a cluster or the workspace. make_sm90_plan tries
// each layout and keeps the cheapest.
SkinnyPlan sm90_split_k_plan(Sm90Layout& l, const SkinnyShape& s, const port::ArchProfile& arch,
                             const Sm90Options& opt, int mma_wm, int mma_mt, bool wgmma, int resident_cap,
                             int slice_rows, bool cluster) {
  SkinnyPlan p = plan_of(s, arch, opt);
  if (!p.reason.empty()) return p;
  if (opt.force_chunkk != 0 && opt.force_chunkk != 1 && opt.force_chunkk != 2)
    return refuse(p, "force_chunkk must be 0, 1 or 2");
  if (opt.force_resident < 0 || opt.force_resident > 2)
    return refuse(p, "force_resident=" + std::to_string(opt.force_resident) + " must be 0, 1 or 2");
  if (opt.force_slice_rows != 0 && !wgmma)
    return refuse(p, "force_slice_rows=" + std::to_string(opt.force_slice_rows) +
                         ": output-row slices exist for the warpgroup kernel (sm_90) only");
  if (opt.force_cluster_reduce < 0 || opt.force_cluster_reduce > 2)
    return refuse(p, "force_cluster_reduce=" + std::to_string(opt.force_cluster_reduce) + " must be 0, 1 or 2");
  if ((cluster || opt.force_cluster_reduce == 2) && !wgmma)
    return refuse(p, "cluster reduction exists for the warpgroup kernel (sm_90) only");
  const int max_cluster = std::min(arch.max_cluster_blocks, kMaxClusterShards);
  if (cluster && max_cluster < 2)
    return refuse(p, std::string(arch.name) + " has no thread-block clusters (cluster reduction)");
  if (cluster && opt.variant != SkinnyVariant::fixed)
    return refuse(p, "the bug-zoo variants use the workspace protocol, not a cluster reduction");
  const bool legacy = opt.variant == SkinnyVariant::readback_one_pass;
  l.cluster_reduce = cluster;

  set_padded_rows(p);
  l.mma = true;
  {
    // Tensor-core path: the warp tile by N class; `mma_wm` warps along M (fewer: more K-groups, more K panels per
    // stage, smaller M-tiles), if the ring and reduction fit the LDS budget.
    const int nbt = next_pow2(ceil_div(s.n, 8));
    l.wgmma = wgmma;
    if (wgmma) {
      // Warpgroup path: 64-row tiles of b per warpgroup (1 or 2), `mma_wm` warpgroups along M (1 or 2).
      if (mma_mt != 4 && mma_mt != 8)
        return refuse(p, "no warpgroup tile with " + std::to_string(mma_mt) + " 16-row tiles of b (4 or 8)");
      if (mma_wm != 1 && mma_wm != 2)
        return refuse(p, "no warpgroup layout with " + std::to_string(mma_wm) + " warpgroups along M (1 or 2)");
      l.mma_m_tiles = mma_mt;
      // Output-row slices: slice_rows rows of a per workgroup (a power of two from 8 to the padded N).
      const int all_rows = 8 * nbt;
      const int r = slice_rows == 0 ? all_rows : slice_rows;
      if (r < 8 || r > all_rows || (r & (r - 1)) != 0)
        return refuse(p, "slice_rows=" + std::to_string(r) + " must be a power of two from 8 to the padded N (" +
                             std::to_string(all_rows) + ")");
      l.mma_n_blocks = r / 8;
      p.slice_rows = r;
      p.n_slices = static_cast<int>(ceil_div(s.n, r));
      p.n_p2 = std::max(16, r);
      l.mma_warps_n = 1;
      l.mma_stages = kWgmmaStages;
    } else {
      const MmaMTileChoices choices = mma_m_tile_choices(nbt);
      if (mma_mt != choices.m_tiles[0] && (choices.count < 2 || mma_mt != choices.m_tiles[1]))
        return refuse(p, "no tensor-core warp tile with " + std::to_string(mma_mt) + " 16-row tiles of b for N=" +
                             std::to_string(s.n));
      const MmaWarpTile wt = mma_warp_tile(nbt, mma_mt);
      l.mma_m_tiles = wt.m_tiles;
      l.mma_n_blocks = wt.n_blocks;
      l.mma_warps_n = wt.warps_n;
      l.mma_stages = wt.stages;
      const int warps = kBlockThreads / 32;
      const int wm = mma_wm;
      if (wm < 1 || wm * wt.warps_n > warps || warps % (wm * wt.warps_n) != 0 || (wt.warps_n > 1 && wm < 2))
        return refuse(p, "no tensor-core layout with " + std::to_string(wm) + " warps along M");
    }
    const int wm = mma_wm;
    l.mma_warps_m = wm;
    // Workgroups per SM the LDS is sized for: the instance's build, or one for a warpgroup instance built for two
    // (resident_cap 1: its ring doubles).
    l.mma_resident = wgmma ? std::min(mma_built_blocks_per_sm(p, l), resident_cap) : mma_built_blocks_per_sm(p, l);
    if (wgmma && opt.force_resident != 0 && l.mma_resident != opt.force_resident)
      return refuse(p, "force_resident=" + std::to_string(opt.force_resident) + ": this warpgroup layout runs " +
                           std::to_string(l.mma_resident) + " workgroup(s) per SM");
    if (wgmma) {
      // Ring slots: 4, or 3 when fewer, larger slots keep more panels in flight ((slots - 1) x panels per slot).
      int in_flight = 0, stages = kWgmmaStages;
      for (int st = kWgmmaStages; st >= kWgmmaMinStages; --st) {
        l.mma_stages = st;
        if (mma_lds_need(p, l, wm) > mma_budget(p, l)) continue;
        if (const int f = (st - 1) * mma_panels(p, l, wm); f > in_flight) {
          in_flight = f;
          stages = st;
        }
      }
      l.mma_stages = stages;
    }
    if (mma_lds_need(p, l, wm) > mma_budget(p, l))
      return refuse(p, "tensor-core ring of " + std::to_string(mma_lds_need(p, l, wm)) + " B exceeds the " +
                           std::to_string(mma_budget(p, l)) + " B budget with " + std::to_string(wm) +
                           (wgmma ? " warpgroups" : " warps") + " along M");
    p.tile_m = 16 * l.mma_m_tiles * wm;
    p.k_groups = mma_k_groups(p, l, wm);
    l.mma_panels = mma_panels(p, l, wm);
  }
  p.tiles_m = ceil_div(s.m, p.tile_m);
  p.m_padded = p.tiles_m * p.tile_m;

  // Base chunk (CHUNKK = 1): 512 (the tensor-core kernels stage panels, not whole chunks).
  choose_chunkk(p, arch, kMmaBaseChunk, legacy);

  // Shards: the chunks per shard that minimise the time model (or forced).
  const std::int64_t chunks = ceil_div(s.k, p.k_chunk);
  if (opt.force_chunks_per_shard > 0) {
    p.chunks_per_shard = static_cast<int>(std::min<std::int64_t>(opt.force_chunks_per_shard, chunks));
    l.mma_model_cost = mma_cost(p, l, chunks, p.chunks_per_shard, arch.compute_units);
  } else {
    const SplitChoice c = mma_chunks_per_shard(p, l, chunks, arch.compute_units, max_cluster);
    if (c.chunks_per_shard == 0)
      return refuse(p, chunks < 2 ? "cluster reduction needs 2.." + std::to_string(max_cluster) + " K-shards; K=" +
                                        std::to_string(s.k) + " has 1 chunk of " + std::to_string(p.k_chunk)
                                  : "cluster reduction: no count of 2.." + std::to_string(max_cluster) +
                                        " K-shards lets the " + std::to_string(p.tiles_m * p.n_slices) +
                                        " clusters run in one wave");
    p.chunks_per_shard = c.chunks_per_shard;
    l.mma_model_cost = c.cost;
  }
  p.k_rnd = ceil_div(chunks, p.chunks_per_shard);
  p.k_shard = static_cast<std::int64_t>(p.chunks_per_shard) * p.k_chunk;
  p.grid = p.tiles_m * p.n_slices * p.k_rnd;
  if (cluster && (p.k_rnd < 2 || p.k_rnd > max_cluster))
    return refuse(p, "cluster reduction with " + std::to_string(p.k_rnd) + " K-shard(s): a cluster holds 2.." +
                         std::to_string(max_cluster) + " workgroups on " + std::string(arch.name));
  if (cluster && !cluster_one_wave(p, l, p.k_rnd, arch.compute_units))
    return refuse(p, "cluster reduction: " + std::to_string(p.tiles_m * p.n_slices) + " clusters of " +
                         std::to_string(p.k_rnd) + " do not run in one wave (" +
                         std::to_string(cluster_slots(static_cast<int>(p.k_rnd), l.mma_resident, arch.compute_units)) +
                         " workgroups at once)");
  l.cluster_blocks = cluster ? static_cast<int>(p.k_rnd) : 1;
  p.overlap_previous = opt.overlap_previous;

  // LDS phases. All share one allocation; barriers separate them.
  p.lds_main = mma_ring_bytes(p, l, l.mma_warps_m, l.mma_panels);
  // (A one-shard plan also stages its tile in LDS for its direct epilogue.)
  p.lds_kreduce = (p.k_groups > 1 || p.k_rnd == 1 || cluster)
                      ? static_cast<std::size_t>(p.k_groups) * p.n_p2 * p.tile_m * 4
                      : 0;
  // Readback passes: N-tiles of at most kReadbackPassOutputs outputs.
  p.readback_pass_outputs = std::min(p.n_p2 * p.tile_m, kReadbackPassOutputs);
  p.rows_per_n_tile = p.readback_pass_outputs / p.tile_m;
  p.n_tiles = p.n_p2 / p.rows_per_n_tile;
  const std::size_t slab_bytes = static_cast<std::size_t>(p.n_p2) * p.tile_m * 4;
  const std::size_t shard_bytes = static_cast<std::size_t>(p.readback_pass_outputs) * 4;  // staged per shard
  if (cluster)  // no readback: the partials stay where the k-group reduction put them
    p.lds_alloc_bytes = std::max(p.lds_main, p.lds_kreduce);
  else  // room to read back up to kMmaReadbackLds bytes of shards per batch
    p.lds_alloc_bytes = std::max({p.lds_main, p.lds_kreduce, shard_bytes,
                                  std::min(static_cast<std::size_t>(p.k_rnd) * shard_bytes, kMmaReadbackLds)});
  return finish_split_k(p, arch, slab_bytes, shard_bytes, legacy, l.cluster_reduce);
}

// The plan a plan maker above gives, carrying the layout it set (none when it refused before setting one).
SkinnyPlan with_layout(SkinnyPlan p, const Sm90Layout& l) {
  if (l.mma) p.arch_layout = std::make_shared<const Sm90Layout>(l);
  return p;
}
SkinnyPlan producer_warp_plan(const SkinnyShape& s, const port::ArchProfile& arch, const Sm90Options& opt) {
  Sm90Layout l;
  return with_layout(producer_warp_plan(l, s, arch, opt), l);
}
SkinnyPlan sm90_split_k_plan(const SkinnyShape& s, const port::ArchProfile& arch, const Sm90Options& opt, int mma_wm,
                             int mma_mt, bool wgmma = false, int resident_cap = 2, int slice_rows = 0,
                             bool cluster = false) {
  Sm90Layout l;
  return with_layout(sm90_split_k_plan(l, s, arch, opt, mma_wm, mma_mt, wgmma, resident_cap, slice_rows, cluster), l);
}

// The options only sm_90 plans have that a plan of `arch` (not sm_90) refuses, as the reason ("" when none is set).
// The others (warps, tiles, chunks per shard, residency 1..2, workspace reduction, allow_producer_warp) leave the
// portable plan as it is.
std::string off_sm90_refusal(const Sm90Options& opt, const port::ArchProfile& arch) {
  if (opt.force_kernel == TensorCoreKernel::producer_warp)
    return std::string("the producer-warp kernel (force_kernel=producer_warp) runs on sm_90 only, not ") +
           std::string(arch.name);
  if (opt.force_pw_tile_m != 0)
    return "force_pw_tile_m applies to the producer-warp kernel only (force_kernel=producer_warp)";
  if (opt.force_resident < 0 || opt.force_resident > 2)
    return "force_resident=" + std::to_string(opt.force_resident) + " must be 0, 1 or 2";
  if (opt.force_slice_rows != 0)
    return "force_slice_rows=" + std::to_string(opt.force_slice_rows) +
           ": output-row slices exist for the warpgroup kernel (sm_90) only";
  if (opt.force_kernel != TensorCoreKernel::plan_choice)
    return std::string("force_kernel=") + tensor_core_kernel_name(opt.force_kernel) +
           ": the tensor-core kernels exist for sm_90 plans only";
  if (opt.force_cluster_reduce < 0 || opt.force_cluster_reduce > 2)
    return "force_cluster_reduce=" + std::to_string(opt.force_cluster_reduce) + " must be 0, 1 or 2";
  if (opt.force_cluster_reduce == 2) return "cluster reduction exists for the warpgroup kernel (sm_90) only";
  return "";
}

}  // namespace

const char* tensor_core_kernel_name(TensorCoreKernel k) {
  switch (k) {
    case TensorCoreKernel::plan_choice: return "plan_choice";
    case TensorCoreKernel::mma_m16n8k16: return "mma_m16n8k16";
    case TensorCoreKernel::wgmma: return "wgmma";
    case TensorCoreKernel::producer_warp: return "producer_warp";
  }
  return "?";
}

const char* sm90_shard_reduction(const SkinnyPlan& plan) {
  return plan.k_rnd == 1 ? "none" : sm90_layout(plan).cluster_reduce ? "cluster" : "workspace";
}

const Sm90Layout& sm90_layout(const SkinnyPlan& plan) {
  static const Sm90Layout empty;
  const auto* l = dynamic_cast<const Sm90Layout*>(plan.arch_layout.get());
  return l ? *l : empty;
}

bool shortest_shard_of_its_count(std::int64_t chunks, std::int64_t cps) {
  return cps <= 1 || ceil_div(chunks, cps - 1) != ceil_div(chunks, cps);
}

double skinny_model_us(const SkinnyPlan& p, const port::ArchProfile& arch, const SkinnyTimeModel& tm) {
  const Sm90Layout& l = sm90_layout(p);
  if (!p.ok || !l.mma || l.producer_warp) return -1;
  return mma_cost(p, l, ceil_div(p.shape.k, p.k_chunk), p.chunks_per_shard, arch.compute_units, tm);
}

int wgmma_unsliced_rows(std::int64_t n) { return 8 * next_pow2(ceil_div(std::max<std::int64_t>(n, 1), 8)); }

bool producer_warp_preferred(const SkinnyShape& s, const port::ArchProfile& arch, const Sm90Options& opt) {
  if (arch.arch != port::Arch::sm_90 || !opt.allow_producer_warp || opt.force_kernel != TensorCoreKernel::plan_choice || forces_a_layout(opt) ||
      opt.force_cluster_reduce != 0 || opt.variant != SkinnyVariant::fixed || !shape_refusal(s).empty())
    return false;
  const std::int64_t tiles = ceil_div(s.m, kPwTileM);
  return pw_unsplit_preferred(s, tiles, arch) || pw_split_preferred(s, tiles, arch) ||
         pw_sliced_preferred(s, tiles, arch) || pw_sliced_split_preferred(s, tiles, arch);
}

SkinnyPlan make_sm90_plan(const SkinnyShape& s, const port::ArchProfile& arch, const Sm90Options& opt) {
  if (opt.force_kernel == TensorCoreKernel::producer_warp || producer_warp_preferred(s, arch, opt)) return producer_warp_plan(s, arch, opt);
  if (opt.force_pw_tile_m != 0) {
    SkinnyPlan p = plan_of(s, arch, opt);
    return refuse(p, "force_pw_tile_m applies to the producer-warp kernel only (force_kernel=producer_warp)");
  }
  // Tensor-core paths: every admitted layout of the m16n8k16 kernel (16-row tiles of b per warp from the N class's
  // choices; 4, 2 or 1 warps along M) and of the warpgroup kernel (1 or 2 tiles of 64 rows per warpgroup; 2 or 1
  // warpgroups along M); the lowest modelled cost wins (ties: the first tried). The options may force the kernel
  // and the layout. When none is admitted, the refusal of the first says why.
  const int nbt = s.n >= 1 && s.n <= 128 ? next_pow2((s.n + 7) / 8) : 1;
  const MmaMTileChoices choices = mma_m_tile_choices(nbt);
  SkinnyPlan best;
  bool first = true;
  auto consider = [&](int wm, int mt, bool wgmma, int slice_rows = 0) {
    if (opt.force_m_tiles != 0 && opt.force_m_tiles != mt) return;
    if (opt.force_slice_rows != 0 && opt.force_slice_rows != slice_rows) return;
    if (opt.force_warps_m != 0 && opt.force_warps_m != wm) return;
    auto take = [&](const SkinnyPlan& c) {
      if (!c.ok) {
        if (first) best = c;
      } else if (!best.ok || sm90_layout(c).mma_model_cost < sm90_layout(best).mma_model_cost) {
        best = c;
      }
      first = false;
    };
    // The warpgroup kernel's split plans also with the shards of a tile reduced through a cluster
    // (force_cluster_reduce picks one way).
    const bool clusters = wgmma && arch.max_cluster_blocks > 1 && opt.variant == SkinnyVariant::fixed;
    for (bool cluster : {false, true}) {
      if (cluster ? (!clusters || opt.force_cluster_reduce == 1) : opt.force_cluster_reduce == 2) continue;
      const SkinnyPlan as_built = sm90_split_k_plan(s, arch, opt, wm, mt, wgmma, 2, slice_rows, cluster);
      take(as_built);
      if (!wgmma) continue;
      // A warpgroup instance sized for two per SM is also tried with the ring of one per SM (force_resident picks).
      const SkinnyPlan one = sm90_split_k_plan(s, arch, opt, wm, mt, wgmma, 1, slice_rows, cluster);
      if (!(as_built.ok && one.ok && sm90_layout(as_built).mma_resident == sm90_layout(one).mma_resident)) take(one);
    }
  };
  if (opt.force_kernel != TensorCoreKernel::wgmma)
    for (int ci = choices.count - 1; ci >= 0; --ci)  // larger warp tiles first: they win ties (fewer LDS reads)
      for (int wm : {4, 2, 1}) consider(wm, choices.m_tiles[ci], false);
  // The warpgroup kernel also with the output rows split in 2 or 4 slices (slice_rows >= 8), or the forced slicing.
  if (opt.force_kernel != TensorCoreKernel::mma_m16n8k16)
    for (int split : {1, 2, 4})
      for (int mt : {8, 4})
        for (int wm : {2, 1}) {
          const int rows = opt.force_slice_rows != 0 ? opt.force_slice_rows : 8 * nbt / split;
          if (rows >= 8 && (split == 1 || opt.force_slice_rows == 0)) consider(wm, mt, true, rows);
        }
  if (first)  // forced off the lists
    return sm90_split_k_plan(s, arch, opt, opt.force_warps_m, opt.force_m_tiles, opt.force_kernel == TensorCoreKernel::wgmma,
                          opt.force_resident != 0 ? opt.force_resident : 2, opt.force_slice_rows,
                          opt.force_cluster_reduce == 2);
  return best;
}

std::string Sm90Layout::describe(const SkinnyPlan& p) const {
  const Sm90Layout& l = *this;
  std::ostringstream o;
  if (l.producer_warp)
    o << " mma=wgmma.m64n" << 8 * l.mma_n_blocks << "k16 producer_warp b_tile=" << p.tile_m << " rows_of_a="
      << 8 * l.mma_n_blocks << " slices=" << p.n_slices << "x" << p.slice_rows << " ring=" << l.mma_stages << "x" << l.mma_panels << "x" << kWgmmaPanelK
      << (l.cluster_reduce ? " reduce=cluster" : "");
  else if (l.wgmma)
    o << " mma=wgmma.m64n" << 8 * l.mma_n_blocks << "k16 warpgroup_tile=" << 16 * l.mma_m_tiles << "x" << 8 * l.mma_n_blocks
      << " warpgroups=" << l.mma_warps_m << "x1 stages=" << l.mma_stages << "x" << l.mma_panels << "x" << kWgmmaPanelK
      << " per_SM=" << l.mma_resident << " slices=" << p.n_slices << "x" << p.slice_rows
      << (l.cluster_reduce ? " reduce=cluster" : (p.k_rnd > 1 ? " reduce=workspace" : ""));
  else
    o << " mma=m16n8k16 warp_tile=" << 16 * l.mma_m_tiles << "x" << 8 * l.mma_n_blocks << " warps=" << l.mma_warps_m << "x"
      << l.mma_warps_n << " stages=" << l.mma_stages << "x" << l.mma_panels << "x" << kMmaPanelK;
  return o.str().substr(1);  // without the leading space
}

nlohmann::json Sm90Layout::report(const SkinnyPlan& plan) const {
  // The layout the plan's time model chose (model_cost: relative, SkinnyTimeModel) or the producer-warp rule's.
  const bool warpgroups = wgmma || producer_warp;
  return {{"kernel", producer_warp ? "wgmma.m64nNk16 producer-warp" : wgmma ? "wgmma.m64nNk16" : "mma.m16n8k16"},
          {warpgroups ? "warpgroup_tile" : "warp_tile", {16 * mma_m_tiles, 8 * mma_n_blocks}},
          {warpgroups ? "warpgroups" : "warps", {mma_warps_m, mma_warps_n}},
          {"k_groups", plan.k_groups},
          {"output_row_slices", {plan.n_slices, plan.slice_rows}},
          {"overlap_previous", plan.overlap_previous},
          {"shard_reduction", sm90_shard_reduction(plan)},
          {"cluster_blocks", cluster_blocks},
          {"ring", {mma_stages, mma_panels, warpgroups ? kWgmmaPanelK : kMmaPanelK}},
          {"model_cost", mma_model_cost}};
}

void register_sm90_arch_path() {
  register_arch_path({&port::kSm90, [](const SkinnyShape& s, const port::ArchProfile& arch, const SkinnyOptions& opt) {
                        return make_sm90_plan(s, arch, Sm90Options{opt});
                      }});
}

SkinnyPlan plan_with_sm90_options(const SkinnyShape& s, const port::ArchProfile& arch, const Sm90Options& opt) {
  if (arch.arch == port::Arch::sm_90) return make_sm90_plan(s, arch, opt);
  const SkinnyOptions& portable = opt;
  SkinnyPlan p = make_plan(s, arch, portable);
  // The shape's and CHUNKK's refusals come first, as the portable plan gives them.
  const bool chunkk_ok = opt.force_chunkk == 0 || opt.force_chunkk == 1 || opt.force_chunkk == 2;
  if (const std::string why = off_sm90_refusal(opt, arch); !why.empty() && shape_refusal(s).empty() && chunkk_ok) {
    p = plan_of(s, arch, opt);
    return refuse(p, why);
  }
  return p;
}

}  // namespace dsv4::kernels::skinny
