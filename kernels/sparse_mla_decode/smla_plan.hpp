// Host plan of the split-KV sparse MLA decode kernel over FP8 KV caches (ops.md §3). The plan is the single source of
// truth for the launcher, can_implement, get_workspace_size, the runner's plan JSON and the tests. Pure C++.
//
// Design: the positions of one query are the concatenation [main topk | extra topk] (fixed offsets: extra position j
// is at topk + j). Split-KV workgroup (split, token = b·s_q + s, head group) takes positions
// [split·chunk, min((split+1)·chunk, topk + extra_topk)), gathers and dequantizes the cache rows of valid indices
// (index != -1 and position < *_topk_length[b]) into LDS key tiles, runs an fp32 online softmax for `heads_per_group`
// heads and writes a per-split partial (out normalised by its own sum, lse natural log; an empty split writes only
// lse = -inf) to the caller-owned workspace. The combine kernel (one block per (token, head)) merges the splits by
// LSE in fixed split order (bit-deterministic), skips -inf splits without reading their partials, writes out = 0,
// lse = +inf for lonely queries, folds the sink into out only, and rounds once to bf16.
// Dequantization is FlashMLA's bf16(fp8)·bf16(scale) rounded to bf16 (kv_dequant=bf16_product; equal to the exact
// product for power-of-two scales), E8M0 decoded exactly (0x00 = 2^-127, 0xFF = NaN), fp8 flavour per shape.
//
// Invariants an admitted plan guarantees: lds_split_bytes <= the profile's LDS per block; workspace_bytes covers
// tokens·num_splits·h_q·(512 + 1) fp32 (out partials, then lse partials at lse_offset, 256-byte aligned).
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

namespace dsv4::kernels::smla {

enum class Layout { v32, model1 };  // V32_FP8Sparse (d_qk 576, 656 B/token), MODEL1_FP8Sparse (d_qk 512, 584 B/token)
enum class Fp8Kind { e4m3fn, e4m3fnuz };

// Deliberately buggy variants (bug zoo); never the default.
enum class Variant {
  fixed,
  gather_invalid_rows,   // known-bugs #10: index -1 masked in the logits but its V row gathered from slot 0 (0·NaN)
  combine_no_inf_guard,  // combine without the -inf guard: exp(-inf - -inf) and 0·(unwritten partial) reach the output
  e8m0_shift23,          // known-bugs #13: MODEL1 scale byte decoded as bits << 23 (0x00 -> 0, 0xFF -> Inf)
};
const char* variant_name(Variant v);
std::optional<Variant> parse_variant(const std::string& s);

struct CacheShape {
  std::int64_t num_blocks = 1, block_size = 1;
  std::int64_t block_stride = 0;  // bytes between blocks; 0 = block_size · bytes_per_token (MODEL1: padded to 576)
};

struct SmlaShape {
  std::int64_t b = 1, s_q = 1, h_q = 1;
  Layout layout = Layout::model1;
  std::int64_t head_dim_v = 512;
  std::int64_t topk = 1;
  CacheShape cache;
  std::int64_t extra_topk = 0;  // 0: no extra cache
  CacheShape extra_cache;
  bool has_topk_length = false, has_extra_topk_length = false, has_sink = false;
  Fp8Kind fp8 = Fp8Kind::e4m3fn;
  double softmax_scale = 0;  // 0: d_qk^-0.5

  int d_qk() const { return layout == Layout::v32 ? 576 : 512; }
  int bytes_per_token() const { return layout == Layout::v32 ? 656 : 584; }
  std::int64_t tokens() const { return b * s_q; }
};

struct SmlaOptions {
  int num_splits = 0;        // 0: automatic (enough workgroups for ~2 per CU, at most one per key tile)
  int heads_per_group = 0;   // 0: automatic (4 for h_q <= 4, else 16); allowed 4, 16, 32
  int key_tile = 0;          // 0: 16 keys per LDS tile; allowed 8..64, multiple of 8
  Variant variant = Variant::fixed;
};

inline constexpr int kSplitThreads = 256;
inline constexpr int kCombineThreads = 128;
inline constexpr int kDv = 512;
inline constexpr int kMaxSplits = 128;
inline constexpr std::size_t kMaxWorkspaceBytes = std::size_t{1} << 31;

struct LdsPhase {
  std::string name;
  std::size_t bytes;
};

struct SmlaPlan {
  bool ok = false;
  std::string reason;  // when !ok: the limit broken, with the numbers
  SmlaShape shape;
  SmlaOptions options;
  port::Arch arch = port::Arch::gfx950;

  int d_qk = 512;
  float scale = 0;                   // fp32 softmax scale
  int heads_per_group = 16;          // HG
  int head_groups = 1;               // ceil(h_q / HG)
  int threads_per_head = 16;         // kSplitThreads / HG (PV phase)
  int d_per_thread = 32;             // kDv / threads_per_head = 2·HG
  int key_tile = 16;                 // KT
  std::int64_t total_positions = 1;  // topk + extra_topk
  int num_splits = 1;
  std::int64_t chunk = 1;            // positions per split
  std::int64_t main_block_stride = 0, extra_block_stride = 0;

  // Launch geometry.
  std::int64_t split_grid_x = 1, split_grid_y = 1, split_grid_z = 1;  // splits, tokens, head groups
  std::int64_t combine_grid_x = 1, combine_grid_y = 1;                // tokens, h_q

  // LDS of the split kernel (one allocation, all live through the main loop) and of the combine kernel.
  std::size_t lds_q = 0, lds_kv = 0, lds_p = 0, lds_stats = 0, lds_index = 0;
  std::size_t lds_split_bytes = 0, lds_combine_bytes = 0, lds_capacity = 0;

  // Workspace (caller-owned): fp32 out partials [tokens][splits][h_q][512], then fp32 lse [tokens][splits][h_q].
  std::size_t ws_out_bytes = 0, lse_offset = 0, ws_lse_bytes = 0, workspace_bytes = 0;

  // Bytes for the roofline: gathered cache rows (every position read once per head group), q, out, lse.
  std::size_t q_bytes = 0, out_bytes = 0, lse_bytes = 0;

  std::vector<LdsPhase> lds_phases() const;
  std::string describe() const;
};

// Never throws for a bad shape: ok = false with the reason.
SmlaPlan make_plan(const SmlaShape& shape, const port::ArchProfile& arch, const SmlaOptions& opt = {});
bool can_implement(const SmlaShape& shape, const port::ArchProfile& arch, const SmlaOptions& opt = {});
// Bytes of caller-owned workspace the launch needs (0 when the plan refuses; check can_implement first).
std::size_t get_workspace_size(const SmlaShape& shape, const port::ArchProfile& arch, const SmlaOptions& opt = {});

// The plan sweeps this kernel offers the AMD budget check (smla_plan_sweep.cpp).
PlanSweep smla_split_plan_sweep();
PlanSweep smla_combine_plan_sweep();

}  // namespace dsv4::kernels::smla
