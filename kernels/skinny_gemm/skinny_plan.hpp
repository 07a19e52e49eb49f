// Host plan of the split-K skinny GEMM (wvSplitKrc design, known-bugs.md appendix): out[N,M] = a[N,K]·b[M,K]^T
// + bias. The plan is the single source of truth: the launcher, the dispatch predicate (can_implement), the
// workspace predicate and allocator, the property tests and the oracle's tile map all read these numbers and
// never re-derive them. Pure C++, no device code.
//
// Invariants an admitted plan guarantees (checked by tests/kernels/skinny_gemm property tests):
//   every LDS phase footprint <= lds_alloc_bytes <= the profile's LDS capacity (except the deliberately buggy
//   readback_one_pass variant, whose readback phase is unbounded, as in the pre-#56098 kernel);
//   workspace_bytes covers k_rnd slabs of tiles_m·n_slices·rows·tile_m fp32 plus one counter per output tile (except the
//   deliberately buggy optimistic_workspace_predicate variant, which counts ceil(K/512) slabs).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels::skinny {

enum class ElemType { bf16, f16 };
enum class BiasShape { none, m, nm, one_m };  // none, [M], [N, M], [1, M]

// Deliberately buggy variants for the bug zoo; never the default, selectable at run time.
enum class SkinnyVariant {
  fixed,                           // the correct kernel
  readback_one_pass,               // known-bugs #1: stage every shard in one pass (no LDS bound), uncapped CHUNKK
  optimistic_workspace_predicate,  // known-bugs #2: workspace predicate counts ceil(K/512) shards
  static_shared_workspace,         // known-bugs #3: one process-wide workspace shared by every stream
};

const char* variant_name(SkinnyVariant v);
const char* elem_name(ElemType t);
const char* bias_name(BiasShape b);

struct SkinnyShape {
  std::int64_t n = 1, m = 1, k = 8;
  std::int64_t lda = 0;  // row stride of a in elements; 0 = k (unpadded)
  ElemType dtype = ElemType::bf16;
  BiasShape bias = BiasShape::none;
  std::int64_t row_stride_a() const { return lda == 0 ? k : lda; }
};

struct SkinnyOptions {
  SkinnyVariant variant = SkinnyVariant::fixed;
  int force_chunkk = 0;  // 0 = the CHUNKK rule; 1 or 2 forces it (tests sweep both)
  // Tensor-core path only (0 = the cost model): warps along M (1, 2 or 4) and K chunks per shard. Tests use them
  // to reach every layout at small shapes; the benchmark's sweep uses them to check the cost model's choice.
  int force_warps_m = 0;
  int force_chunks_per_shard = 0;
  int force_m_tiles = 0;  // 16-row tiles of b per warp (one of mma_m_tile_choices; 4 or 8 per warpgroup for wgmma)
  // sm_90 only: which tensor-core kernel (0 = the plan's choice: the producer-warp kernel where its rule admits the
  // shape, else the cost model's; 1 = m16n8k16 warp tiles, 2 = wgmma warpgroups, 3 = the producer-warp kernel).
  int force_kernel = 0;
  // Warpgroup kernel: workgroups per SM its ring is sized for (0 = the cost model's choice; 1 or 2, at most what the
  // instance is built for). One per SM doubles the ring of an instance built for two: more bytes in flight.
  int force_resident = 0;
  // Warpgroup kernel: rows of a (output rows) per workgroup (0 = the cost model's choice; else a power of two from 8
  // to the padded N). Fewer than the padded N splits the output rows into ceil(N / rows) slices, one workgroup per
  // (M-tile, slice, K-shard): more workgroups without a split-K tail, each re-reading its M-tile's b (mostly from L2).
  int force_slice_rows = 0;
  // sm_90: launch as a programmatic dependent launch (LaunchConfig::overlap_previous): the kernel is scheduled while
  // the previous kernel on the stream finishes and waits for it before touching memory. false: a plain launch.
  bool overlap_previous = true;
  // Warpgroup kernel, split plans: how the K-shards of an output tile are combined (0 = the cost model's choice,
  // 1 = workspace slabs and a counter, the last arriver reading them back; 2 = the shards of a tile form one
  // thread-block cluster and sum each other's partial from LDS, no workspace; at most max_cluster_blocks shards).
  int force_cluster_reduce = 0;
  // sm_90: whether the plan may take the producer-warp kernel by its rule (kPwTileM); false keeps the split-K kernels
  // and the cost model's choice among them (the benchmark's A/B, DSV4_BENCH_NO_PW).
  bool allow_producer_warp = true;
  // Producer-warp kernel: rows of b per workgroup (0 = its rule; kPwTileM = 64 or kPwWideTileM = 128).
  int force_pw_tile_m = 0;
};

struct LdsPhase {
  std::string name;   // "main-loop staging", "k-group reduction", "readback batch"
  std::size_t bytes;  // footprint of the phase (all phases share one allocation, separated by barriers)
};

// Which output rows/columns each tile owns, for the oracle's localisation.
struct SkinnyTileMap {
  std::int64_t rows_per_n_tile = 0;   // readback staging groups rows in N-tiles of this many rows
  std::int64_t cols_per_m_tile = 0;   // output columns (rows of b) per workgroup
  std::int64_t k_shards = 0;
  std::int64_t k_shard_size = 0;
  std::string plan;                   // e.g. "skinny gfx950 n_p2=128 tile_m=16 CHUNKK=2 k_rnd=21"
};

inline constexpr int kBlockThreads = 256;
inline constexpr int kMicroRows = 4;   // per-thread micro-tile rows (of a)
inline constexpr int kMicroCols = 4;   // per-thread micro-tile columns (rows of b)
inline constexpr int kRowPad = 8;      // elements of padding per staged row (16 B: spreads LDS banks)
inline constexpr int kVec = 8;         // elements per 16-byte vector
inline constexpr int kChunkkShardCap = 11;
// Tensor-core path (sm_90). Each warp computes a tile of mma_m_tiles·16 rows of b by mma_n_blocks·8 rows of a
// with m16n8k16 MMAs; warps_m x warps_n warps tile the workgroup's output, k_groups = 8 / (warps_m·warps_n)
// groups of them split each pipeline stage's K panels. Both operands are staged in LDS by asynchronous copies in
// `stages` ring slots of `panels` panels of 32 K elements (64-byte rows: the 16-byte fragment loads of a warp hit
// 32 distinct banks). Warp tile by the padded 8-row block count of a (next_pow2(ceil(N/8))), measured on the H200.
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
// Warpgroup path (sm_90 wgmma, skinny_gemm_wgmma.kernel.cpp): two warpgroups of 128 threads per workgroup; each
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
// Producer-warp kernel (sm_90, skinny_gemm_pw.kernel.cpp, SkinnyPlan::producer_warp): b as the wgmma's A operand,
// one workgroup per kPwTileM rows of b with all 8·mma_n_blocks (8, 16, 32, 64 or 128) padded rows of a, the whole K
// or with K split into 2-8 shards whose workgroups form a cluster and sum each other's partial from LDS (no
// workspace): a producer warp fills a ring of per-slot full/empty barriers, two consumer warpgroups take alternate
// steps. Its plan is not the time model's: make_plan takes it (producer_warp_preferred), from H200 A/B runs
// (session 13, two or three runs each way, RESULTS_skinny_h200.md; ratios to cuBLAS, the split-K kernels' in
// brackets):
//   * unsplit where its grid of 64-row tiles fills at least 3/4 of the SMs (M = 7168: N <= 32 0.96-1.09x, N = 64
//     0.91-0.98x, N = 128 0.85-1.01x [0.94-1.07, 0.88-0.95, 0.73-0.93]), and for up to kPwMaxRowsPartialGrid rows
//     of a (N <= 64) also from SMs / kPwMinGridDivisor tiles with K <= kPwMaxKPartialGrid (M = 4096, K <= 7168: N <=
//     32 1.11-1.22x [0.86-1.10], N = 64 0.93-0.94x [0.84-0.89]);
//   * split where the tiles leave at least half the SMs idle, K >= kPwMinKSplit and the unsplit rule does not apply,
//     for more than 64 rows of a only from SMs / kPwMinGridDivisor tiles (M = 1024, K >= 7168: N <= 32 0.99-1.16x
//     [0.96-1.14], N = 64 0.94-0.95x [0.83-0.89]; M = 4096, K = 16384: N <= 64 1.00-1.07x [0.97-1.01]; N = 128,
//     M = 4096, K = 7168: 0.98x [0.90]). Measured slower: a split at K = 2048 for N >= 32 (0.84-1.00x against
//     0.93-1.03x) and for N = 128 at M = 1024 (0.60-0.82x against 0.75-0.88x); 2 shards instead of none at M = 4096
//     with K <= 7168 (0.91-1.12x against 1.11-1.22x);
//   * with output-row slices of kPwSliceRows rows of a (one workgroup per tile and slice) for more rows than that,
//     K < kPwMinKSplit and kPwSliceMinTiles to SMs / kPwMinGridDivisor tiles (M = 1024, K = 2048: N = 64 0.99x
//     [0.93], N = 128 1.03x [0.88]; one run). Slices measured slower on grids past one wave (0.29-0.72x at M = 4096
//     and 7168) and with K = 16384 at M = 1024 (0.64x against 0.81x);
//   * with slices of kPwMaxRowsPartialGrid rows of a and a cluster split for more rows than that, kPwMinKSplit <=
//     K <= kPwMaxKPartialGrid and kPwSliceMinTiles to SMs / kPwMinGridDivisor tiles (session 14, N = 128, M = 1024,
//     K = 7168: 3 shards, 10.96-10.99 us against the split-K kernels' 12.62, cuBLAS 9.45-9.51, one run of each
//     forced form: 2 shards 11.85-11.91, 32-row slices with 2 shards 11.56-11.64, 4 shards do not run in one wave;
//     K = 16384: 20.0 against 19.3, hence the bound on K).
inline constexpr int kPwMaxRowsPartialGrid = 64;
inline constexpr int kPwSliceRows = 32;
inline constexpr std::int64_t kPwSliceMinTiles = 16;
inline constexpr std::int64_t kPwMaxKPartialGrid = 8192;
inline constexpr std::int64_t kPwMinKSplit = 4096;  // measured at 2048 (slower) and 7168 (faster)
inline constexpr int kPwThreads = 288;   // two consumer warpgroups and the producer warp
inline constexpr int kPwTileM = 64;      // rows of b per workgroup (the wgmma's m)
// The wide tile: 128 rows of b per workgroup, each consumer warpgroup the MMAs of its 64 rows on every step (no
// k-groups): half the workgroups, each streaming twice the rows of b with 16 KiB bulk copies of b
// (SkinnyOptions::force_pw_tile_m). Its rule (session 15, H200, two runs; the 64-row tile's times in brackets, us):
// where the 64-row tiles fill at least 3/4 of the SMs, with at most kPwWideMaxRows padded rows of a and rows x K at
// most kPwWideMaxRowsK, unsplit. M = 7168, K = 2048: N = 1 9.23 [9.71-9.75], N = 4 9.22-9.27 [9.82-9.83], N = 16
// 9.43-9.44 [9.79-9.80], N = 32 10.01 [10.03-10.04]; K = 7168: N = 1 27.42 [28.16], N = 4 26.85-27.20
// [28.18-28.42], N = 16 28.56-28.69 [28.33-28.34], N = 32 30.0-30.5 [28.8]; K = 16384: 65-66 [59.4-59.7] for
// N <= 16 (56 workgroups cannot pull the DRAM bandwidth through their copies); on grids below 3/4 of the SMs it
// was slower at every N (M = 4096, K = 2048: 7.4-8.7 [6.0-6.3]), as was every N = 64 and 128 (at N = 128 the MMAs
// of a 128 x 128 step bound it). Data: bench/kernels/data/skinny_pw_h200.txt, session 15.
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
inline constexpr int kReadbackPassOutputs = 4096;  // outputs per readback pass: 16 per thread
// Epilogue group: consecutive outputs of one row that a thread sums and stores together (skinny_device.hpp); every
// plan keeps tile_m a multiple of it.
inline constexpr int kEpiVec = 8;
// Shards a cluster reduction takes at most (the kernel unrolls its exchange to it; also capped by the arch profile's
// max_cluster_blocks, 8 on sm_90).
inline constexpr int kMaxClusterShards = 8;


struct SkinnyPlan {
  // Admission.
  bool ok = false;
  std::string reason;  // when !ok: the limit the shape breaks, with the numbers

  port::Arch arch = port::Arch::gfx950;
  SkinnyShape shape;
  SkinnyOptions options;

  // Tiling.
  int n_p2 = 16;          // max(16, next_pow2(N)): rows every workgroup computes (padded rows clamp/skip)
  int grps_shr_b = 1;     // min(n_p2/16, 4), as in wvSplitKrc
  int tile_m = 64;        // output columns per workgroup
  int rows_per_n_tile = 16;  // min(n_p2, 64): readback staging N-tile
  int n_tiles = 1;        // n_p2 / rows_per_n_tile
  int k_groups = 1;       // threads (FMA path) or warps (MMA path) splitting one chunk's K inside a workgroup
  int readback_pass_outputs = 0;  // outputs read back per pass (whole N-tiles; all of n_p2·tile_m on the FMA path)
  // Tensor-core path (sm_90, see MmaWarpTile): LDS-staged operands, asynchronous-copy pipeline.
  bool mma = false;
  bool wgmma = false;     // the warpgroup kernel (see kWgmmaStages); the mma_* fields then count warpgroups
  bool producer_warp = false;  // the producer-warp kernel (see kPwTileM; wgmma false): mma_stages x mma_panels is its
                               // ring, mma_n_blocks its rows of a / 8, k_groups 2 (its consumer warpgroups)
  int mma_warps_m = 0;    // warps along M (tile_m = 16 · mma_m_tiles · mma_warps_m)
  int mma_warps_n = 0;    // warps along N (8 · mma_n_blocks · mma_warps_n = padded N)
  int mma_m_tiles = 0;    // 16-row tiles of b per warp
  int mma_n_blocks = 0;   // 8-row blocks of a per warp
  int mma_stages = 0;     // pipeline ring slots
  int mma_resident = 0;   // workgroups per SM the LDS budget is sized for (1 or 2; at most the instance's build)
  int mma_panels = 0;     // K panels per stage (32 elements, max(kMmaMinPanels, k_groups); wgmma: 64 elements)
  double mma_model_cost = 0;        // the split/tiling cost model's value for this plan (lower is better)
  std::int64_t tiles_m = 1;
  std::int64_t m_padded = 0;
  // Output-row slices (warpgroup kernel; 1 elsewhere): slice j owns output rows [j·slice_rows, (j+1)·slice_rows) ∩
  // [0, N); n_p2 = max(16, slice_rows) rows are computed per workgroup. Workgroup order: slices of an M-tile are
  // adjacent (its b is read from DRAM about once), then M-tiles, then K-shards.
  int n_slices = 1;
  int slice_rows = 16;

  // Cluster reduction (warpgroup kernel, sm_90): the k_rnd shards of each output tile run as one thread-block cluster
  // of k_rnd workgroups (adjacent in the grid: workgroup order is then shards, slices, M-tiles); each keeps its fp32
  // partial in LDS, and after a cluster barrier each sums its share of the tile's outputs over all shards in shard
  // order 0..k_rnd-1 (the slab path's order: the same bits) and stores it. No workspace, counters or readback.
  bool cluster_reduce = false;
  int cluster_blocks = 1;  // LaunchConfig::cluster_blocks: k_rnd when cluster_reduce, else 1

  // Split-K.
  int chunkk = 1;
  int k_chunk = 512;            // elements of K staged per main-loop step (kFit = base/CHUNKK)
  int chunks_per_shard = 1;     // 1 = the 1KPASS design; >1 only when the grid would exceed the target
  std::int64_t k_shard = 512;   // elements of K per shard
  std::int64_t k_rnd = 1;       // shard count used by the kernel
  std::int64_t cu_needed = 0;   // tiles_m · ceil(K / base chunk) (the appendix's CuNeeded)

  // Launch.
  bool overlap_previous = false;  // programmatic dependent launch (sm_90 plans unless the options turn it off)
  std::int64_t grid = 1;  // tiles_m · n_slices · k_rnd workgroups, 1-D
  int block = kBlockThreads;

  // LDS.
  std::size_t lds_main = 0, lds_kreduce = 0, lds_readback = 0;
  std::size_t lds_alloc_bytes = 0;  // what the kernel allocates
  std::size_t lds_capacity = 0;     // the profile's per-block LDS
  int readback_batch_shards = 1;    // shards staged per readback batch
  std::int64_t readback_batches = 1;

  // Workspace.
  std::size_t partial_bytes = 0;     // k_rnd · tiles_m · n_slices · n_p2 · tile_m · 4 (what the kernel writes)
  std::size_t counter_offset = 0;    // byte offset of the counters (0; the region is kCounterRegionBytes)
  std::size_t counter_bytes = 0;     // tiles_m · n_slices int32 (one per output tile)
  std::size_t workspace_bytes = 0;   // what the workspace predicate requires (== need unless buggy variant)
  std::size_t workspace_need_bytes = 0;  // what the kernel actually touches

  std::vector<LdsPhase> lds_phases() const;
  SkinnyTileMap tile_map() const;
  std::string describe() const;  // one line: every number above that matters for a report
  // How the K-shards of a tile are combined: "none" (one shard), "cluster" or "workspace".
  const char* shard_reduction() const { return k_rnd == 1 ? "none" : cluster_reduce ? "cluster" : "workspace"; }
};

// The sm_90 plans' time model (a relative cost of one launch of a tensor-core layout): make_plan picks the kernel, the
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
// The defaults are a fit (bench/kernels/fit_skinny_model, session 8) to H200 sweeps of every forced layout: both
// tensor-core kernels, both residencies, output-row slicings, both shard reductions of the warpgroup kernel and its
// ring of 3 or 4 slots, with programmatic dependent launch. bench/kernels/data/skinny_sweep_h200.txt now holds one
// full sweep of the session 9 kernel (compile-time panel counts, ~1 % faster per layout); on it the model's pick is
// within 0.96 % of the fastest layout on average over the 54 benchmark shapes, 5.5 % at worst (N=32 K=2048 M=4096),
// and a refit gained nothing (0.92 %). The constants are effective values that make the right choices, not
// measurements: only the picks matter, so the model's overall scale is free and the fit let it drift (its costs are
// several times the measured microseconds), and it moves per-launch overheads between terms. One layout's timings
// differ by up to ~5 % between H200 runs (~10 % for the largest shapes), so finer fits would follow noise.
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
// SkinnyOptions::force_slice_rows forces one slice.
int wgmma_unsliced_rows(std::int64_t n);

// The plan of a shape on an arch profile. Never throws for a bad shape: returns ok=false with the reason.
SkinnyPlan make_plan(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt = {});

// Whether make_plan's own choice (allow_producer_warp, no option forcing a kernel or a layout) is the producer-warp
// kernel: sm_90, the fixed variant, and the unsplit or the split rule of kPwMaxRowsPartialGrid's comment.
bool producer_warp_preferred(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt = {});

// Dispatch predicate and workspace predicate: both read make_plan, nothing else.
bool can_implement(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt = {});
std::size_t workspace_size(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt = {});

// Every workspace starts with a counter region of this fixed size (zero between launches); the fp32 slabs follow
// it. A fixed place keeps counters and slabs of different shapes from overlapping when a pool slot is reused.
inline constexpr std::size_t kCounterRegionBytes = std::size_t{64} << 10;

// Largest workspace a plan may ask for (a shape needing more is refused).
inline constexpr std::size_t kMaxWorkspaceBytes = std::size_t{64} << 20;

}  // namespace dsv4::kernels::skinny
