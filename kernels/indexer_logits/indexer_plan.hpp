// Host plans of the two lightning-indexer kernels (ops.md §4):
//   indexer_logits        (§4.1, prefill): logits[i, c] over keys kv[j] for ks[i] <= j < ke[i];
//   indexer_logits_paged  (§4.2, decode):  logits[b·next_n + t, k] over the first context_lens[b, t] tokens of
//                                          batch b's cache pages (read through the block table).
// Both kernels share one design: one block per (query row, tile of kKeysPerBlock output columns), one thread per
// key. The block decodes its query row q[H, D] (fp8) into fp32 LDS and its head weights into LDS; each thread
// decodes its key row into registers and computes sf · Σ_h relu(Σ_d q·k) · w_h in fp32. No workspace.
// The plan is the single source of truth for admission (can_implement), grid, LDS phases and bytes, output
// strides; the launcher, runner, tests and benchmark read it and never re-derive these numbers. Pure C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::indexer {

enum class Fp8 { e4m3fn, e4m3fnuz };  // format of q and of the keys (the op's dtype attribute, not the arch's)

// Deliberately buggy variants for the bug zoo and tests; never the default, selectable at run time.
enum class IndexerVariant {
  fixed,
  ke_off_by_one,         // non-paged: keys j < ke − 1 only (the last key of each range is treated as outside)
  mask_broadcast_heads,  // paged, known-bugs #8: head h is masked with row (h mod next_n)'s context length
                         // instead of its own row's (the [next_n, block] mask broadcast against [next_n, H, block]
                         // scores); exact when next_n == 1, silently wrong when next_n == H
};

const char* variant_name(IndexerVariant v);
bool parse_variant(const std::string& s, IndexerVariant& out);

inline constexpr int kKeysPerBlock = 128;      // output columns (keys) per block = threads per block
inline constexpr int kOutRowAlignElems = 256;  // default logits row stride: a 1024-byte multiple (DeepGEMM)
inline constexpr std::size_t kCudaDefaultDynLds = 48 * 1024;  // the port launches without the sm_90 LDS opt-in

struct LdsPhase {
  std::string name;
  std::size_t bytes;
};

// Fields common to both plans.
struct CommonPlan {
  bool ok = false;
  std::string reason;  // when !ok: the rule the shape breaks, with the numbers
  port::Arch arch = port::Arch::gfx950;
  IndexerVariant variant = IndexerVariant::fixed;
  Fp8 fp8 = Fp8::e4m3fn;
  std::int64_t rows = 0;        // output rows (S, or B·next_n)
  std::int64_t h = 0, d = 0;
  std::int64_t width = 0;       // logical output columns per row
  std::int64_t row_stride = 0;  // output row stride in fp32 elements (>= width)
  std::int64_t col_tiles = 0;   // ceil(width / kKeysPerBlock)
  unsigned grid[3] = {0, 1, 1}; // x: output row, y: column tile
  int block = kKeysPerBlock;
  std::size_t lds_q = 0, lds_weights = 0;  // phase footprints (both live for the whole block)
  std::size_t lds_bytes = 0;     // dynamic LDS requested
  std::size_t lds_capacity = 0;  // the limit used for admission (profile, or 48 KiB on sm_90)
  std::size_t workspace_bytes = 0;
  std::size_t out_bytes = 0;     // rows · row_stride · 4
  std::vector<LdsPhase> lds_phases() const;
};

struct IndexerShape {
  std::int64_t s = 0, s_kv = 0, h = 64, d = 128;
  Fp8 fp8 = Fp8::e4m3fn;
  bool clean_logits = true;
  std::int64_t max_seqlen_k = 0;  // 0 = full width S_kv; > 0 = compressed rows out[i, j − ks[i]]
  std::int64_t out_row_stride = 0;  // 0 = width rounded up to kOutRowAlignElems
  bool dot_bf16 = false;          // variant dot:bf16 (vLLM torch reference): not implemented, refused
};

struct IndexerPlan : CommonPlan {
  IndexerShape shape;
  std::string describe() const;
};

struct PagedShape {
  std::int64_t b = 0, next_n = 1, h = 64, d = 128;
  std::int64_t block_kv = 64, num_blocks = 0, max_blocks = 0, max_context_len = 0;
  Fp8 fp8 = Fp8::e4m3fn;
  bool clean_logits = false;      // must be false (contract)
  std::int64_t out_row_stride = 0;
  bool dot_bf16 = false;
};

struct PagedPlan : CommonPlan {
  PagedShape shape;
  std::size_t block_bytes = 0;  // block_kv · (D + 4): codes, then fp32 scales
  std::size_t cache_bytes = 0;  // num_blocks · block_bytes
  std::string describe() const;
};

// Never throw for a bad shape: ok = false with the reason.
IndexerPlan make_indexer_plan(const IndexerShape& s, const port::ArchProfile& arch,
                              IndexerVariant v = IndexerVariant::fixed);
PagedPlan make_paged_plan(const PagedShape& s, const port::ArchProfile& arch, IndexerVariant v = IndexerVariant::fixed);
bool can_implement(const IndexerShape& s, const port::ArchProfile& arch);
bool can_implement(const PagedShape& s, const port::ArchProfile& arch);

// The plan sweeps this kernel offers the AMD budget check (indexer_plan_sweep.cpp).
PlanSweep indexer_plan_sweep();
PlanSweep indexer_paged_plan_sweep();

}  // namespace dsv4::kernels::indexer
