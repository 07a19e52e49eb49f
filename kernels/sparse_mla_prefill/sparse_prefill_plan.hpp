// Host plan of the sparse_mla_prefill kernel (ops.md §2, FlashMLA flash_mla_sparse_fwd, current semantics).
// One workgroup of 256 threads per (query token, head group): it stages its heads' q rows in LDS once, then walks
// the token's top-k indices in tiles of tile_k rows: the valid rows of a tile are gathered into LDS (invalid ones
// are zero-filled and never dereferenced), QK^T and an fp32 online softmax run over the tile, and every thread
// accumulates its own (heads x 8 columns) slice of P·V in fp32 registers.
//
// The plan is the single source of truth: the launcher, can_implement, the runner's plan JSON (grid, LDS per
// region against capacity, workspace 0, tile map) and the tests read these numbers and never re-derive them.
// Tile sizes are chosen per arch profile so that the whole LDS footprint fits the profile's per-block capacity
// (known-bugs #11): gfx942 64 KiB, gfx950 160 KiB, sm_90 227 KiB. Pure C++, no device code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::sparse_prefill {

// Deliberately buggy variants for the bug zoo; never the default, selectable at run time.
enum class PrefillVariant {
  fixed,
  clamp_invalid,  // known-bugs #10 form: invalid indices are clamped into [0, s_kv) and their rows loaded; the
                  // logit is masked (p = 0) but 0 * NaN from a NaN row reaches out
  drop_sink,      // attn_sink ignored
  log2_lse,       // known-bugs #7: release-1408756 semantics (lse/max_logits in log2 units, lonely lse -inf)
};

const char* variant_name(PrefillVariant v);
std::optional<PrefillVariant> parse_variant(const std::string& s);

struct PrefillShape {
  std::int64_t s_q = 1, h_q = 1, d_qk = 576, d_v = 512, s_kv = 1, topk = 1;
  std::int64_t q_stride_s = 0, q_stride_h = 0;  // elements; 0 = contiguous ([h_q, d_qk] per token, d_qk per head)
  std::int64_t kv_stride = 0;                   // elements between kv rows; 0 = d_qk
  std::int64_t qs() const { return q_stride_s == 0 ? h_q * qh() : q_stride_s; }
  std::int64_t qh() const { return q_stride_h == 0 ? d_qk : q_stride_h; }
  std::int64_t kvs() const { return kv_stride == 0 ? d_qk : kv_stride; }
};

struct PrefillOptions {
  PrefillVariant variant = PrefillVariant::fixed;
  int force_tile_k = 0;  // 0 = the plan's choice; else that tile (refused if it does not fit the LDS)
  int force_heads = 0;   // 0 = the plan's choice; else heads per workgroup
};

inline constexpr int kBlockThreads = 256;
inline constexpr int kVec = 8;             // bf16 elements per 16-byte vector
inline constexpr int kRowPad = 8;          // elements of padding per staged row (16 B, spreads LDS banks)
inline constexpr int kMaxHeadsPerBlock = 16;
inline constexpr int kMaxHeadsPerThread = 4;  // P·V accumulators per thread: kMaxHeadsPerThread x 8 fp32
inline constexpr int kTileCandidates[] = {128, 64, 32, 16};

struct LdsRegion {
  std::string name;
  std::size_t offset, bytes;  // all regions are live for the whole kernel (one allocation)
};

struct PrefillPlan {
  bool ok = false;
  std::string reason;  // when !ok: the limit the shape breaks, with the numbers
  port::Arch arch = port::Arch::gfx950;
  PrefillShape shape;
  PrefillOptions options;

  int heads = 16;         // heads per workgroup (H_B)
  std::int64_t head_groups = 1;
  int tile_k = 64;        // gathered kv rows per LDS tile
  std::int64_t k_tiles = 1;  // ceil(topk / tile_k): tiles of a full row (a row walks ceil(topk_length / tile_k))
  int pitch = 584;        // staged row pitch in elements (d_qk + kRowPad)
  int col_groups = 64;    // d_v / 8: 8-column slices of the output
  int head_slots = 4;     // 256 / col_groups: threads per column slice (each owns heads h, h + head_slots, ...)
  int heads_per_thread = 4;

  std::int64_t grid_x = 1, grid_y = 1;  // tokens x head groups
  int block = kBlockThreads;

  std::size_t q_bytes = 0, kv_bytes = 0, score_bytes = 0, index_bytes = 0, stats_bytes = 0;
  std::size_t lds_bytes = 0;     // sum of the regions (the launch's dynamic LDS)
  std::size_t lds_capacity = 0;  // the profile's per-block LDS
  std::size_t workspace_bytes = 0;  // none: every workgroup owns its outputs

  std::vector<LdsRegion> lds_regions() const;
  std::string describe() const;
};

// LDS footprint of a (heads, tile_k) choice for a d_qk: q stage + kv tile (rows of d_qk + kRowPad bf16) + fp32
// scores [heads, tile_k] + int32 row indices [tile_k] + 3 fp32 softmax stats per head (rounded up to 16 B).
constexpr std::size_t lds_footprint(int heads, int tile_k, std::int64_t d_qk) {
  const auto pitch = static_cast<std::size_t>(d_qk + kRowPad);
  return static_cast<std::size_t>(heads) * pitch * 2 + static_cast<std::size_t>(tile_k) * pitch * 2 +
         static_cast<std::size_t>(heads) * tile_k * 4 + static_cast<std::size_t>(tile_k) * 4 +
         (3 * static_cast<std::size_t>(heads) * 4 + 15) / 16 * 16;
}

// Compile-time budget (known-bugs #11): the tiles the plan picks for the model shapes (16 heads, d_qk 576 and 512)
// fit each profile's LDS. The plan checks every other shape at run time and refuses what does not fit.
static_assert(lds_footprint(kMaxHeadsPerBlock, 32, 576) <= port::kGfx942.lds_bytes_per_block);
static_assert(lds_footprint(kMaxHeadsPerBlock, 64, 576) <= port::kGfx950.lds_bytes_per_block);
static_assert(lds_footprint(kMaxHeadsPerBlock, 128, 512) <= port::kGfx950.lds_bytes_per_block);
static_assert(lds_footprint(kMaxHeadsPerBlock, 128, 576) <= port::kSm90.lds_bytes_per_block);

// The plan of a shape on an arch profile. Never throws for a bad shape: returns ok=false with the reason.
PrefillPlan make_plan(const PrefillShape& shape, const port::ArchProfile& arch, const PrefillOptions& opt = {});
bool can_implement(const PrefillShape& shape, const port::ArchProfile& arch, const PrefillOptions& opt = {});

// The plan sweep this kernel offers the AMD budget check (sparse_prefill_plan_sweep.cpp).
PlanSweep sparse_prefill_plan_sweep();

}  // namespace dsv4::kernels::sparse_prefill
