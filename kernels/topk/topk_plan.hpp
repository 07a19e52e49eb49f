// Host plan of the indexer top-k kernel (ops.md §5, reference/ops/topk): per row r, the indices of the min(topk,|L|)
// largest logits among L = {j in [row_starts[r], row_ends[r]) : logits[r,j] > -inf}, the other slots -1, order
// unspecified, ties broken arbitrarily (set semantics: any subset of the tied values at the threshold is valid).
//
// Algorithm (one block per row, radix select on order-preserving 32-bit keys: key(x) = bits ^ (sign ? ~0 :
// 0x80000000), so key order is float order with -0 < +0, which set semantics accepts since -0 == +0):
//   pass 1..3: a histogram of the next 11, 11, 10 key bits of the valid elements that match the prefix found so far
//              (2048 LDS bins, LDS atomics); a block suffix scan (Hillis-Steele over per-thread bin chunks) locates the
//              bin holding the k-th largest; pass 1's total is |L|, and when |L| <= topk every valid index is taken;
//   final pass: elements with key > T (the k-th largest key) go to slots [0, n_gt) through an LDS counter, elements
//              equal to T fill [n_gt, topk) until full (arbitrary tie choice), slots >= min(topk,|L|) get -1.
// The row is read 4 times (L2-resident for the rows the model uses: <= 128K fp32 = 512 KiB). NaN logits are a
// precondition violation (the reference rejects them); this kernel treats NaN as invalid (never selected).
// LDS: hist 2048 x u32 (8 KiB), scan 2 x 1024 x u32 (8 KiB), state 4 x u32: 16400 bytes static, on every arch.
// No workspace. Limits (refused with the rule): topk in [1, 2048], C <= 2^24 columns (int32 indices, u32 counts,
// and the tested range: rows up to 128K), R <= 2^31 - 1 rows (grid.x), masked=select_neg_inf not implemented.
// Pure C++, no device code.
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

namespace dsv4::kernels::topk {

enum class IndexBase { absolute, row_relative };

// Deliberately buggy variants for the bug zoo; never the default.
enum class TopkVariant {
  fixed,
  raw_bits_key,   // radix keys are the raw float bits: negative logits order backwards (and below positives wrongly)
  neg_inf_valid,  // -inf logits count as valid: short rows pick masked positions instead of -1
};

struct TopkShape {
  std::int64_t rows = 1, cols = 1;
  std::int64_t ld = 0;  // elements between rows of logits; 0 = cols
  std::int64_t topk = 16;
  IndexBase index_base = IndexBase::absolute;
  bool select_neg_inf = false;  // masked=select_neg_inf (refused)
};

struct TopkOptions {
  TopkVariant variant = TopkVariant::fixed;
  int wave_size = 0;      // 0: the profile's; 32 / 64 under a simulator override
  int block_threads = 0;  // 0: the rule (256 for rows <= 4096 columns, else 1024); else a power of two in [64, 1024]
};

inline constexpr std::int64_t kMaxTopk = 2048;
inline constexpr std::int64_t kMaxCols = std::int64_t{1} << 24;
inline constexpr int kHistBins = 2048;
inline constexpr int kMaxBlockThreads = 1024;
inline constexpr int kRadixPasses = 3;
inline constexpr int kRadixBits[kRadixPasses] = {11, 11, 10};

struct LdsCarve {
  std::string name;
  std::size_t bytes;
};

struct TopkPlan {
  bool ok = false;
  std::string reason;

  TopkShape shape;
  TopkOptions options;
  port::Arch arch = port::Arch::gfx950;
  std::int64_t ld = 0;
  int wave_size = 64;
  int block = 256;
  std::int64_t grid = 1;  // one block per row
  std::vector<LdsCarve> lds;       // static LDS arrays
  std::size_t lds_bytes = 0;       // their sum
  std::size_t lds_capacity = 0;
  std::size_t workspace_bytes = 0;

  // Compulsory bytes (each logit and the row bounds read once, the indices written once): the floor's numerator.
  double bytes_compulsory() const;
  // Bytes the kernel actually moves (the row is read once per radix pass plus the selection pass).
  double bytes_moved() const;
  std::string describe() const;
};

TopkPlan make_topk_plan(const TopkShape& shape, const port::ArchProfile& arch, const TopkOptions& opt = {});
bool can_implement(const TopkShape& shape, const port::ArchProfile& arch, const TopkOptions& opt = {});

const char* variant_name(TopkVariant v);
std::optional<TopkVariant> parse_topk_variant(const std::string& s);

// The plan sweep this kernel offers the AMD budget check (topk_plan_sweep.cpp).
PlanSweep topk_plan_sweep();

}  // namespace dsv4::kernels::topk
