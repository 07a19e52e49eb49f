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

// The tensor-core kernel an sm_90 plan runs (SkinnyOptions::force_kernel; kernels/nvidia/skinny_gemm).
enum class TensorCoreKernel {
  plan_choice = 0,    // the producer-warp kernel where its rule admits the shape, else the time model's choice
  mma_m16n8k16 = 1,   // m16n8k16 warp tiles (skinny_gemm_mma.kernel.cpp)
  wgmma = 2,          // wgmma warpgroups (skinny_gemm_wgmma.kernel.cpp)
  producer_warp = 3,  // the producer-warp kernel (skinny_gemm_pw.kernel.cpp)
};
const char* tensor_core_kernel_name(TensorCoreKernel k);

struct SkinnyOptions {
  SkinnyVariant variant = SkinnyVariant::fixed;
  int force_chunkk = 0;  // 0 = the CHUNKK rule; 1 or 2 forces it (tests sweep both)
  // The rest steers sm_90 plans only (kernels/nvidia/skinny_gemm/sm90_plan.hpp; 0 = the plan's own choice). Tests use
  // them to reach every layout at small shapes; the benchmark's sweep uses them to check the time model's choice.
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
  // Launch as a programmatic dependent launch (LaunchConfig::overlap_previous): the kernel is scheduled while the
  // previous kernel on the stream finishes and waits for it before touching memory. false: a plain launch.
  bool overlap_previous = true;
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
inline constexpr int kReadbackPassOutputs = 4096;  // outputs per readback pass: 16 per thread
// Epilogue group: consecutive outputs of one row that a thread sums and stores together (skinny_device.hpp); every
// plan keeps tile_m a multiple of it.
inline constexpr int kEpiVec = 8;

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
  // Tensor-core layout: set by the sm_90 plan (kernels/nvidia/skinny_gemm/sm90_plan.hpp: MmaWarpTile, kWgmmaStages,
  // kPwTileM), false / 0 on the portable plan.
  bool mma = false;       // an sm_90 tensor-core kernel (LDS-staged operands, asynchronous-copy pipeline)
  bool wgmma = false;     // the warpgroup kernel; the mma_* fields then count warpgroups
  bool producer_warp = false;  // the producer-warp kernel (wgmma false): mma_stages x mma_panels is its ring,
                               // mma_n_blocks its rows of a / 8, k_groups 2 (its consumer warpgroups)
  int mma_warps_m = 0;    // warps along M (tile_m = 16 · mma_m_tiles · mma_warps_m)
  int mma_warps_n = 0;    // warps along N (8 · mma_n_blocks · mma_warps_n = padded N)
  int mma_m_tiles = 0;    // 16-row tiles of b per warp
  int mma_n_blocks = 0;   // 8-row blocks of a per warp
  int mma_stages = 0;     // pipeline ring slots
  int mma_resident = 0;   // workgroups per SM the LDS budget is sized for (1 or 2; at most the instance's build)
  int mma_panels = 0;     // K panels per stage (32 elements, max(kMmaMinPanels, k_groups); wgmma: 64 elements)
  double mma_model_cost = 0;        // the time model's value for this plan (lower is better)
  std::int64_t tiles_m = 1;
  std::int64_t m_padded = 0;
  // Output-row slices (warpgroup kernel; 1 elsewhere): slice j owns output rows [j·slice_rows, (j+1)·slice_rows) ∩
  // [0, N); n_p2 = max(16, slice_rows) rows are computed per workgroup. Workgroup order: slices of an M-tile are
  // adjacent (its b is read from DRAM about once), then M-tiles, then K-shards.
  int n_slices = 1;
  int slice_rows = 16;

  // Cluster reduction (sm_90 warpgroup kernels): the k_rnd shards of each output tile run as one thread-block cluster
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

// The plan of a shape on an arch profile: the portable FMA kernel's on AMD profiles (skinny_plan.cpp), the sm_90
// tensor-core kernels' on sm_90 (kernels/nvidia/skinny_gemm/sm90_plan.cpp; refused on the hip build, which has no
// sm_90 kernels). Never throws for a bad shape: returns ok=false with the reason.
SkinnyPlan make_plan(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt = {});

// Dispatch predicate and workspace predicate: both read make_plan, nothing else.
bool can_implement(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt = {});
std::size_t workspace_size(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt = {});

// Every workspace starts with a counter region of this fixed size (zero between launches); the fp32 slabs follow
// it. A fixed place keeps counters and slabs of different shapes from overlapping when a pool slot is reused.
inline constexpr std::size_t kCounterRegionBytes = std::size_t{64} << 10;

// Largest workspace a plan may ask for (a shape needing more is refused).
inline constexpr std::size_t kMaxWorkspaceBytes = std::size_t{64} << 20;

}  // namespace dsv4::kernels::skinny
