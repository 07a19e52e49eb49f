// Host plan of the split-K skinny GEMM (wvSplitKrc design, known-bugs.md appendix): out[N,M] = a[N,K]·b[M,K]^T
// + bias. The plan is the single source of truth: the launcher, the dispatch predicate (can_implement), the
// workspace predicate and allocator, the property tests and the oracle's tile map all read these numbers and
// never re-derive them. Pure C++, no device code.
//
// Invariants an admitted plan guarantees (checked by tests/kernels/skinny_gemm property tests):
//   every LDS phase footprint <= lds_alloc_bytes <= the profile's LDS capacity (except the deliberately buggy
//   readback_one_pass variant, whose readback phase is unbounded, as in the pre-#56098 kernel);
//   workspace_bytes covers k_rnd slabs of tiles_m·n_slices·rows·tile_m fp32 plus one counter per output tile (except the
//   deliberately buggy optimistic_workspace_predicate variant, which counts ceil(K/512) slabs, and an arch layout
//   whose split keeps its partials on chip: sm_90's cluster reduction, which needs none).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels::skinny {

class ArchLayout;  // skinny_arch_layout.hpp

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

// The options every backend's plan takes. An arch path may extend them (kernels/nvidia/skinny_gemm/sm90_plan.hpp:
// Sm90Options); the portable plan reads only these.
struct SkinnyOptions {
  SkinnyVariant variant = SkinnyVariant::fixed;
  int force_chunkk = 0;  // 0 = the CHUNKK rule; 1 or 2 forces it (tests sweep both)
  // Launch as a programmatic dependent launch (LaunchConfig::overlap_previous) where the plan's kernel supports it:
  // the kernel is scheduled while the previous kernel on the stream finishes and waits for it before touching
  // memory. false: a plain launch. (The portable kernel always launches plainly.)
  bool overlap_previous = true;
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
  // The layout of an arch path's kernels (kernels/nvidia/skinny_gemm: sm_90), null on the portable plan: such a plan
  // runs that layout's kernel (skinny_arch_layout.hpp), and every number below still holds for it.
  std::shared_ptr<const ArchLayout> arch_layout;
  std::int64_t tiles_m = 1;
  std::int64_t m_padded = 0;
  // Output-row slices: an output tile is (M-tile, slice), and slice j owns output rows [j·slice_rows,
  // (j+1)·slice_rows) ∩ [0, N). The portable plan has one slice of n_p2 rows; the fields stay here, not in an arch
  // layout, because the split-K protocol every kernel shares (skinny_device.hpp: TileRef, slabs, counters, readback)
  // and the workspace size count output tiles. An arch layout may slice (n_p2 = max(16, slice_rows) rows per
  // workgroup). Workgroup order: slices of an M-tile are adjacent (its b is read about once), then M-tiles, then
  // K-shards.
  int n_slices = 1;
  int slice_rows = 16;

  // Split-K.
  int chunkk = 1;
  int k_chunk = 512;            // elements of K staged per main-loop step (kFit = base/CHUNKK)
  int chunks_per_shard = 1;     // 1 = the 1KPASS design; >1 only when the grid would exceed the target
  std::int64_t k_shard = 512;   // elements of K per shard
  std::int64_t k_rnd = 1;       // shard count used by the kernel
  std::int64_t cu_needed = 0;   // tiles_m · ceil(K / base chunk) (the appendix's CuNeeded)

  // Launch.
  bool overlap_previous = false;  // programmatic dependent launch (an arch layout's, unless the options turn it off)
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
  std::string layout_text() const;  // the arch layout's words in describe ("" without one)
};

// The plan of a shape on an arch profile: the plan of the arch path registered for the profile, if any
// (skinny_arch_layout.hpp), else the portable FMA kernel's on the AMD profiles (skinny_plan.cpp), else refused ("no
// skinny_gemm kernel for <arch>"). Never throws for a bad shape: returns ok=false with the reason.
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
