// The sm_90 plan of the skinny GEMM (kernels/nvidia/skinny_gemm: the m16n8k16, warpgroup and producer-warp kernels):
// their options (Sm90Options), their layout (Sm90Layout, the plan's arch layout), their constants, the time model
// that picks among the split-K kernels' layouts, and the producer-warp kernel's rules. register_sm90_arch_path
// (called by kernels/builtin_kernels.cpp on cuda and sim) registers the sm_90 profile's arch path, through which
// make_plan (kernels/skinny_gemm/skinny_plan.hpp) reaches make_sm90_plan with the default Sm90Options; the plan it
// returns is a SkinnyPlan whose arch_layout is an Sm90Layout. Pure C++, no device code. Frozen: maintained, not tuned
// further (docs/nvidia.md).
#pragma once
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_arch_layout.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::kernels::skinny {

// The tensor-core kernel an sm_90 plan runs (Sm90Options::force_kernel).
enum class TensorCoreKernel {
  plan_choice = 0,    // the producer-warp kernel where its rule admits the shape, else the time model's choice
  mma_m16n8k16 = 1,   // m16n8k16 warp tiles (skinny_gemm_mma.kernel.cpp)
  wgmma = 2,          // wgmma warpgroups (skinny_gemm_wgmma.kernel.cpp)
  producer_warp = 3,  // the producer-warp kernel (skinny_gemm_pw.kernel.cpp)
};
const char* tensor_core_kernel_name(TensorCoreKernel k);

// The portable options plus what steers the sm_90 plans only (0 = the plan's own choice). Tests use them to reach
// every layout at small shapes; the benchmark's sweep uses them to check the time model's choice. The overloads of
// make_plan, can_implement and workspace_size below take them; on other profiles any of them set is refused.
struct Sm90Options : SkinnyOptions {
  int force_warps_m = 0;           // warps (warpgroups) along M: 1, 2 or 4
  int force_chunks_per_shard = 0;  // K chunks (producer-warp kernel: ring steps) per shard
  int force_m_tiles = 0;  // 16-row tiles of b per warp (one of mma_m_tile_choices; 4 or 8 per warpgroup for wgmma)
  TensorCoreKernel force_kernel = TensorCoreKernel::plan_choice;
  // Warpgroup kernel: workgroups per SM its ring is sized for (1 or 2, at most what the instance is built for). One
  // per SM doubles the ring of an instance built for two: more bytes in flight.
  int force_resident = 0;
  // Warpgroup kernels: rows of a (output rows) per workgroup (a power of two from 8 to the padded N). Fewer than the
  // padded N splits the output rows into ceil(N / rows) slices, one workgroup per (M-tile, slice, K-shard): more
  // workgroups without a split-K tail, each re-reading its M-tile's b (mostly from L2).
  int force_slice_rows = 0;
  // Warpgroup kernel, split plans: how the K-shards of an output tile are combined (1 = workspace slabs and a
  // counter, the last arriver reading them back; 2 = the shards of a tile form one thread-block cluster and sum each
  // other's partial from LDS, no workspace; at most max_cluster_blocks shards).
  int force_cluster_reduce = 0;
  // Whether the plan may take the producer-warp kernel by its rule; false keeps the split-K kernels and the time
  // model's choice among them (the benchmark's A/B, DSV4_BENCH_NO_PW).
  bool allow_producer_warp = true;
  // Producer-warp kernel: rows of b per workgroup (kPwTileM = 64 or kPwWideTileM = 128).
  int force_pw_tile_m = 0;
};

// The tensor-core layout of an sm_90 plan (SkinnyPlan::arch_layout). The portable numbers of the plan (tile_m,
// k_groups, slices, shards, ring bytes as lds_main) stay in SkinnyPlan.
class Sm90Layout final : public ArchLayout {
 public:
  bool mma = false;            // an sm_90 tensor-core kernel (LDS-staged operands, asynchronous-copy pipeline); false
                               // only on the empty layout sm90_layout gives for plans without one
  bool wgmma = false;          // the warpgroup kernel; the mma_* fields then count warpgroups
  bool producer_warp = false;  // the producer-warp kernel (wgmma false): mma_stages x mma_panels is its ring,
                               // mma_n_blocks its rows of a / 8, k_groups 2 (its consumer warpgroups)
  int mma_warps_m = 0;    // warps along M (tile_m = 16 · mma_m_tiles · mma_warps_m)
  int mma_warps_n = 0;    // warps along N (8 · mma_n_blocks · mma_warps_n = padded N)
  int mma_m_tiles = 0;    // 16-row tiles of b per warp
  int mma_n_blocks = 0;   // 8-row blocks of a per warp
  int mma_stages = 0;     // pipeline ring slots
  int mma_resident = 0;   // workgroups per SM the LDS budget is sized for (1 or 2; at most the instance's build)
  int mma_panels = 0;     // K panels per stage (32 elements, max(kMmaMinPanels, k_groups); wgmma: 64 elements)
  double mma_model_cost = 0;  // the time model's value for this plan (lower is better; -1: the producer-warp rule's)
  // Cluster reduction (warpgroup and producer-warp kernels, where the profile has thread-block clusters:
  // ArchProfile::max_cluster_blocks): the k_rnd shards of each output tile run as one thread-block cluster of k_rnd
  // workgroups (adjacent in the grid: workgroup order is then shards, slices, M-tiles); each keeps its fp32 partial
  // in LDS, and after a cluster barrier each sums its share of the tile's outputs over all shards in shard order
  // 0..k_rnd-1 (the slab path's order: the same bits) and stores it. No workspace, counters or readback.
  bool cluster_reduce = false;
  int cluster_blocks = 1;  // LaunchConfig::cluster_blocks: k_rnd when cluster_reduce, else 1

  std::string describe(const SkinnyPlan& plan) const override;  // sm90_plan.cpp
  std::string report_key() const override { return "tensor_core"; }
  nlohmann::json report(const SkinnyPlan& plan) const override;  // sm90_plan.cpp
  void launch(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace, std::size_t declared_workspace_bytes,
              port::Stream& stream) const override;  // sm90_launch.kernel.cpp
};

// The sm_90 layout of a plan; for a plan without one (portable, or refused before its layout was set) an empty
// layout (mma false, every count 0).
const Sm90Layout& sm90_layout(const SkinnyPlan& plan);
// How the K-shards of a plan's tiles are combined: "none" (one shard), "cluster" or "workspace".
const char* sm90_shard_reduction(const SkinnyPlan& plan);

// The m16n8k16 kernel (skinny_gemm_mma.kernel.cpp). Each warp computes a tile of mma_m_tiles·16 rows of b by mma_n_blocks·8 rows of a
// with m16n8k16 MMAs; warps_m x warps_n warps tile the workgroup's output, k_groups = 8 / (warps_m·warps_n)
// groups of them split each pipeline stage's K panels. Both operands are staged in LDS by asynchronous copies in
// `stages` ring slots of `panels` panels of 32 K elements (64-byte rows: the 16-byte fragment loads of a warp hit
// 32 distinct banks). Warp tile by the padded 8-row block count of a (next_pow2(ceil(N/8))).
struct MmaWarpTile {
  int m_tiles, n_blocks, warps_n, stages;
};
#ifndef SKINNY_MMA_STAGES_SMALL_N
#define SKINNY_MMA_STAGES_SMALL_N 4
#endif
#ifndef SKINNY_MMA_STAGES_LARGE_N
#define SKINNY_MMA_STAGES_LARGE_N 3
#endif
#ifndef SKINNY_MMA_MIN_PANELS
#define SKINNY_MMA_MIN_PANELS 4
#endif
constexpr int mma_stages(int n_blocks) { return n_blocks <= 4 ? SKINNY_MMA_STAGES_SMALL_N : SKINNY_MMA_STAGES_LARGE_N; }
// The warp tile for the padded 8-row block count of a (next_pow2(ceil(N/8))) and 16-row tiles of b per warp:
// up to 8 blocks of a per warp (two warps along N above). Instantiated warp tiles (m_tiles x n_blocks): 1x1, 1x2,
// 1x4, 2x4, 2x8, 4x8; mma_m_tile_choices lists the ones the plan may pick per N class.
constexpr MmaWarpTile mma_warp_tile(int n_blocks_total, int m_tiles) {
  return n_blocks_total <= 4 ? MmaWarpTile{m_tiles, n_blocks_total, 1, mma_stages(n_blocks_total)}
                             : MmaWarpTile{m_tiles, 8, n_blocks_total / 8, mma_stages(8)};
}
struct MmaMTileChoices {
  int count;
  int m_tiles[2];
};
constexpr MmaMTileChoices mma_m_tile_choices(int n_blocks_total) {
  return n_blocks_total <= 2 ? MmaMTileChoices{1, {1, 0}}
                             : (n_blocks_total == 4 ? MmaMTileChoices{2, {1, 2}} : MmaMTileChoices{2, {2, 4}});
}
inline constexpr int kMmaMinPanels = SKINNY_MMA_MIN_PANELS;  // K panels per stage at least (contiguous bytes per row)
inline constexpr int kMmaPanelK = 32;
#ifndef SKINNY_MMA_LARGE_TILE_BLOCKS_PER_SM
#define SKINNY_MMA_LARGE_TILE_BLOCKS_PER_SM 1
#endif
// Resident workgroups per SM each kernel instance is compiled for (its launch bounds, hence its register cap): the
// 32x64 and 64x64 warp tiles need more than 128 registers.
constexpr int mma_blocks_per_sm(int n_blocks, int m_tiles) {
  return n_blocks * m_tiles >= 16 ? SKINNY_MMA_LARGE_TILE_BLOCKS_PER_SM : 2;
}
// LDS per block for the ring and reduction: two blocks share an SM's 228 KiB (with 1 KiB each reserved), or one.
constexpr std::size_t mma_lds_budget(int blocks_per_sm) {
  return blocks_per_sm >= 2 ? std::size_t{112} << 10 : std::size_t{200} << 10;
}
// Warpgroup kernel (wgmma, skinny_gemm_wgmma.kernel.cpp): two warpgroups of 128 threads per workgroup; each
// multiplies mma_m_tiles / 4 tiles of 64 rows of b (1 or 2) by all 8·mma_n_blocks (padded, power-of-two) rows of a
// with m64nNk16 MMAs from LDS; mma_warps_m counts warpgroups along M (1 or 2), k_groups = 2 / mma_warps_m. The ring
// has mma_stages slots (kWgmmaMinStages..kWgmmaStages: the plan keeps the most panels in flight) of mma_panels
// (1, 2 or 4) swizzled K-major panels of 64 K elements (128-byte rows), filled by bulk copies, plus 1 KiB to align
// it and one barrier per slot; one or two workgroups per SM (wgmma_blocks_per_sm, with mma_lds_budget's budget).
inline constexpr int kWgmmaStages = 4;     // ring slots at most (each slot count is a kernel instance)
inline constexpr int kWgmmaMinStages = 3;  // fewer slots of more panels, where that keeps more bytes in flight
inline constexpr int kWgmmaPanelK = 64;
inline constexpr int kWgmmaMaxPanels = 4;  // panels per ring slot at most (two bulk copies each per step)
// Resident workgroups per SM each warpgroup kernel instance is built for: two for small tiles (8·n_blocks rows of
// a x 64·m64 rows of b with n_blocks·m64 <= 4: at most 32 accumulators per thread), else one.
constexpr int wgmma_blocks_per_sm(int n_blocks, int m64) { return n_blocks * m64 <= 4 ? 2 : 1; }
inline constexpr std::size_t kWgmmaAlignSlack = 1024;
// Producer-warp kernel (skinny_gemm_pw.kernel.cpp, Sm90Layout::producer_warp): b as the wgmma's A operand, one
// workgroup per kPwTileM rows of b with all 8·mma_n_blocks (8, 16, 32, 64 or 128) padded rows of a, the whole K or
// with K split into 2-8 shards whose workgroups form a cluster and sum each other's partial from LDS (no workspace):
// a producer warp fills a ring of per-slot full/empty barriers, two consumer warpgroups take alternate steps. Its
// plan is not the time model's: make_plan takes it by a rule (producer_warp_preferred; the A/B runs behind it are in
// bench/kernels/RESULTS_skinny_h200.md):
//   * unsplit where its grid of 64-row tiles fills at least 3/4 of the SMs, and for up to kPwMaxRowsPartialGrid
//     padded rows of a also from SMs / kPwMinGridDivisor tiles with K <= kPwMaxKPartialGrid;
//   * split where the tiles leave at least half the SMs idle, K >= kPwMinKSplit and the unsplit rule does not apply,
//     for more than kPwMaxRowsPartialGrid rows of a only from SMs / kPwMinGridDivisor tiles;
//   * with output-row slices of kPwSliceRows rows of a (one workgroup per tile and slice) for more rows than that,
//     K < kPwMinKSplit and kPwSliceMinTiles to SMs / kPwMinGridDivisor tiles;
//   * with slices of kPwMaxRowsPartialGrid rows of a and a cluster split for more rows than that, kPwMinKSplit <= K
//     <= kPwMaxKPartialGrid and kPwSliceMinTiles to SMs / kPwMinGridDivisor tiles.
inline constexpr int kPwMaxRowsPartialGrid = 64;
inline constexpr int kPwSliceRows = 32;
inline constexpr std::int64_t kPwSliceMinTiles = 16;
inline constexpr std::int64_t kPwMaxKPartialGrid = 8192;
inline constexpr std::int64_t kPwMinKSplit = 4096;
inline constexpr int kPwThreads = 288;   // two consumer warpgroups and the producer warp
inline constexpr int kPwTileM = 64;      // rows of b per workgroup (the wgmma's m)
// The wide tile: 128 rows of b per workgroup, each consumer warpgroup the MMAs of its 64 rows on every step (no
// k-groups): half the workgroups, each streaming twice the rows of b with 16 KiB bulk copies of b
// (Sm90Options::force_pw_tile_m). Its rule (pw_wide_preferred): unsplit, where the 64-row tiles fill at least 3/4
// of the SMs, with at most kPwWideMaxRows padded rows of a and rows x K at most kPwWideMaxRowsK.
inline constexpr int kPwWideTileM = 128;
inline constexpr int kPwWideMaxRows = 16;
inline constexpr std::int64_t kPwWideMaxRowsK = 65536;
inline constexpr int kPwRingBytes = 192 << 10;
inline constexpr int kPwMaxSlots = 16;
inline constexpr int kPwMinGridDivisor = 4;
// Ring slots x 64-K panels per slot for `rows` padded rows of a: `wide`, with one bulk copy per operand for the
// slot's 2 panels (K % 64 == 0), where the grid leaves SMs free (a workgroup's copy issue rate bounds it); else one
// panel per slot, twice as deep (the grid is at least 3/4 of the SMs, or K % 64 != 0). The best prototype rings at
// rows <= 32: 8x2 at M = 4096, 16x1 at M = 7168; more rows keep the ring at 192 KiB.
struct PwRing {
  int stages, panels;
};
// With tile_m = 128 rows of b (kPwWideTileM) the slots are larger: 6 one-panel slots at 128 rows of a, 8 at 64, 9
// at 32, 10 at 16, 11 at 8.
constexpr PwRing pw_ring(int rows, bool wide, int tile_m = kPwTileM) {
  const int slots = std::min(kPwMaxSlots, kPwRingBytes / ((tile_m + rows) * kWgmmaPanelK * 2));  // one-panel slots
  return wide ? PwRing{slots / 2, 2} : PwRing{slots, 1};
}
// Epilogue LDS row strides (floats): the k-group exchange (64 rows of the accumulator tile) is padded so that a
// warp's 8 rows x 4 float2 hit distinct banks; the transposed output tile (rows of a) keeps 16-byte rows.
constexpr int pw_red_stride(int rows) { return rows + ((8 - rows) % 32 + 32) % 32; }
constexpr int pw_tile_stride(int tile_m) { return tile_m + 4; }
inline constexpr int kMmaBaseChunk = 512;  // K per chunk at CHUNKK = 1
inline constexpr std::size_t kMmaReadbackLds = std::size_t{64} << 10;  // LDS for readback batches
// Shards a cluster reduction takes at most (the kernel unrolls its exchange to it; also capped by the arch profile's
// max_cluster_blocks, 8 on sm_90).
inline constexpr int kMaxClusterShards = 8;


// The time model (a relative cost of one launch of a tensor-core layout): make_plan picks the kernel, the
// layout and the chunks per shard that minimise it. Terms:
//   * workgroups run in waves of SMs x resident-per-SM; each streams its b rows and its a rows (a at a fraction of
//     its weight: the rows of a are re-read by every M-tile, mostly as L2 hits; likewise b, re-read by the further
//     output-row slices of its M-tile, at b_reread_weight) at the lower of its share of the
//     copy bandwidth and of what its ring keeps in flight over a loaded memory latency; a warpgroup-kernel
//     workgroup streams at most wgmma_block_gbs;
//   * MMAs run at the given rate (m16n8k16 per SM per microsecond; a 64 x N x 16 wgmma counts as N/2 of them),
//     shared by the workgroups resident on the SM; a workgroup costs the larger of the two plus block_us;
//   * a split adds the partials written and read back at the copy bandwidth, a serial tail (fence, counter) and
//     the last arriver's readback of every shard's slab at readback_gbs; a cluster-reduced split (admitted only when
//     all its clusters run in one wave) adds cluster_tail_us and the exchange of its shards' partials at cluster_gbs
//     instead.
// The defaults are a fit (bench/kernels/nvidia/fit_skinny_model) to the committed H200 sweep of every forced layout
// (bench/kernels/data/skinny_sweep_h200.txt; the ctest SkinnyModel.PicksWithinTheH200SweepsFastest checks the picks
// against it; fit quality in bench/kernels/RESULTS_skinny_h200.md). The constants are effective values that make the
// right choices, not measurements: only the picks matter, so the model's overall scale is free, and it moves
// per-launch overheads between terms.
struct SkinnyTimeModel {
  double copy_gbs = 382.6;          // device copy bandwidth shared by concurrent workgroups
  double latency_us = 32.94;        // loaded memory latency: a ring streams (slots - 1) x slot bytes per latency
  double block_us = 0.3886;         // per workgroup wave: pipeline fill and epilogue
  double tail_us = 72.55;           // a split's serial tail: release fence, counter, acquire
  double readback_gbs = 1.443;      // the last arriver's readback rate
  double mma_per_sm_per_us = 0.08744; // mma.sync m16n8k16 per SM per microsecond (effective: see above)
  double wgmma_per_sm_per_us = 984;
  double wgmma_block_gbs = 3.281;   // most a warpgroup-kernel workgroup streams
  double a_weight = 0.005414;       // weight of the rows of a in the bytes streamed (m16n8k16 kernel)
  double a_weight_wgmma = 0.2901;   // the same for the warpgroup kernel (TMA boxes of a mostly hit in L2)
  double b_reread_weight = 1.006;   // weight of b re-read by an M-tile's further output-row slices (L2 hits)
  double cluster_tail_us = 24;      // a cluster-reduced split's tail: two cluster barriers
  double cluster_gbs = 0.9516;      // rate of a cluster's exchange of its shards' partials (the tile's outputs)
};

// The model's cost of an admitted tensor-core plan (its layout and chunks per shard) under `tm`; -1 for plans
// without tensor cores and for the producer-warp kernel (chosen by its rule, not by the model). make_plan's mma_model_cost is this with the default model.
double skinny_model_us(const SkinnyPlan& plan, const port::ArchProfile& arch, const SkinnyTimeModel& tm = {});

// Whether `cps` chunks per shard is the shortest shard giving its shard count for `chunks` chunks: the only shard
// length per count the sm_90 plans consider (and the benchmark sweeps).
bool shortest_shard_of_its_count(std::int64_t chunks, std::int64_t cps);

// Rows of a per workgroup of an unsliced warpgroup plan (the padded N: 8 · next_pow2(ceil(N / 8))); forcing it as
// Sm90Options::force_slice_rows forces one slice.
int wgmma_unsliced_rows(std::int64_t n);


// Whether make_plan's own choice (allow_producer_warp, no option forcing a kernel or a layout) is the producer-warp
// kernel: sm_90, the fixed variant, and the unsplit or the split rule of kPwMaxRowsPartialGrid's comment.
bool producer_warp_preferred(const SkinnyShape& shape, const port::ArchProfile& arch, const Sm90Options& opt = {});

// Registers the sm_90 arch path (skinny_arch_layout.hpp: the kSm90 profile, make_sm90_plan with the portable
// options); once per process, from kernels/builtin_kernels.cpp.
void register_sm90_arch_path();

// The sm_90 plan of a shape (make_plan's for sm_90 profiles). Never throws for a bad shape.
SkinnyPlan make_sm90_plan(const SkinnyShape& shape, const port::ArchProfile& arch, const Sm90Options& opt);

// make_plan with the sm_90 options: make_sm90_plan on sm_90 profiles; elsewhere the portable plan, refused (naming
// the option) when an option of a kernel or a layout only sm_90 has is set.
SkinnyPlan plan_with_sm90_options(const SkinnyShape& shape, const port::ArchProfile& arch, const Sm90Options& opt);
// make_plan, can_implement and workspace_size given Sm90Options: plan_with_sm90_options. Templates taking exactly
// Sm90Options, so that an Sm90Options argument picks them (never sliced to SkinnyOptions) while a braced list of
// options still means the portable SkinnyOptions.
template <class Options>
  requires std::same_as<Options, Sm90Options>
SkinnyPlan make_plan(const SkinnyShape& shape, const port::ArchProfile& arch, const Options& opt) {
  return plan_with_sm90_options(shape, arch, opt);
}
template <class Options>
  requires std::same_as<Options, Sm90Options>
bool can_implement(const SkinnyShape& shape, const port::ArchProfile& arch, const Options& opt) {
  return plan_with_sm90_options(shape, arch, opt).ok;
}
template <class Options>
  requires std::same_as<Options, Sm90Options>
std::size_t workspace_size(const SkinnyShape& shape, const port::ArchProfile& arch, const Options& opt) {
  const SkinnyPlan p = plan_with_sm90_options(shape, arch, opt);
  return p.ok ? p.workspace_bytes : 0;
}

}  // namespace dsv4::kernels::skinny
