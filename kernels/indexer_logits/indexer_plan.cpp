// Plans of the indexer_logits / indexer_logits_paged kernels; see indexer_plan.hpp.
#include "kernels/indexer_logits/indexer_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::indexer {

namespace {

const char* fp8_name(Fp8 f) { return f == Fp8::e4m3fn ? "e4m3fn" : "e4m3fnuz"; }

// Fills the fields shared by both plans; returns the refusal reason ("" when admitted so far).
std::string plan_common(CommonPlan& p, std::int64_t rows, std::int64_t h, std::int64_t d, std::int64_t width,
                        std::int64_t stride, bool dot_bf16, const port::ArchProfile& arch) {
  p.arch = arch.arch;
  p.rows = rows;
  p.h = h;
  p.d = d;
  p.width = width;
  if (dot_bf16)
    return "variant dot:bf16 (vLLM's torch reference rounds each q·k dot to bf16) is not implemented: the kernel "
           "computes the DeepGEMM fp32 dot";
  if (rows < 0 || width < 0) return fmt::format("rows = {} and width = {} must be >= 0", rows, width);
  if (h < 1) return fmt::format("H = {} must be >= 1", h);
  if (d != 32 && d != 64 && d != 128)
    return fmt::format("D = {} is not supported: the kernel is instantiated for D in {{32, 64, 128}} (ops.md §4.2)", d);
  p.row_stride = stride > 0 ? stride : (width + kOutRowAlignElems - 1) / kOutRowAlignElems * kOutRowAlignElems;
  if (p.row_stride < width) return fmt::format("output row stride {} is smaller than the row width {}", p.row_stride, width);
  p.col_tiles = (width + kKeysPerBlock - 1) / kKeysPerBlock;
  if (rows > 0x7fffffff) return fmt::format("{} output rows exceed the grid's x limit 2^31 − 1", rows);
  if (p.col_tiles > 65535)
    return fmt::format("{} column tiles of {} keys exceed the grid's y limit 65535 (width {})", p.col_tiles,
                       kKeysPerBlock, width);
  p.grid[0] = static_cast<unsigned>(rows);
  p.grid[1] = static_cast<unsigned>(std::max<std::int64_t>(p.col_tiles, 1));
  p.lds_q = static_cast<std::size_t>(h * d) * 4;
  p.lds_weights = static_cast<std::size_t>(h) * 4;
  p.lds_bytes = p.lds_q + p.lds_weights;
  p.lds_capacity = arch.arch == port::Arch::sm_90 ? std::min(arch.lds_bytes_per_block, kCudaDefaultDynLds)
                                                  : arch.lds_bytes_per_block;
  if (p.lds_bytes > p.lds_capacity)
    return fmt::format("LDS {} B (q as fp32 H·D·4 = {} + weights H·4 = {}) exceeds the {} B per block of {}{}",
                       p.lds_bytes, p.lds_q, p.lds_weights, p.lds_capacity, arch.name,
                       arch.arch == port::Arch::sm_90 ? " (default dynamic shared memory without the opt-in)" : "");
  p.out_bytes = static_cast<std::size_t>(rows * p.row_stride) * 4;
  p.workspace_bytes = 0;
  return "";
}

std::string common_text(const CommonPlan& p) {
  return fmt::format("{} rows={} H={} D={} width={} row_stride={} grid=[{},{},1] block={} lds={}B/{}B variant={}",
                     port::profile(p.arch).name, p.rows, p.h, p.d, p.width, p.row_stride, p.grid[0], p.grid[1],
                     p.block, p.lds_bytes, p.lds_capacity, variant_name(p.variant));
}

}  // namespace

const char* variant_name(IndexerVariant v) {
  switch (v) {
    case IndexerVariant::ke_off_by_one: return "ke_off_by_one";
    case IndexerVariant::mask_broadcast_heads: return "mask_broadcast_heads";
    case IndexerVariant::fixed: break;
  }
  return "default";
}

bool parse_variant(const std::string& s, IndexerVariant& out) {
  if (s == "default" || s == "fixed") out = IndexerVariant::fixed;
  else if (s == "ke_off_by_one") out = IndexerVariant::ke_off_by_one;
  else if (s == "mask_broadcast_heads") out = IndexerVariant::mask_broadcast_heads;
  else return false;
  return true;
}

std::vector<LdsPhase> CommonPlan::lds_phases() const {
  return {{"q row (fp32 H·D)", lds_q}, {"head weights (fp32 H)", lds_weights}};
}

std::string IndexerPlan::describe() const {
  return fmt::format("indexer_logits {} S={} S_kv={} {} clean_logits={} max_seqlen_k={}{}", common_text(*this), shape.s,
                     shape.s_kv, fp8_name(shape.fp8), shape.clean_logits, shape.max_seqlen_k,
                     ok ? "" : " REFUSED: " + reason);
}

std::string PagedPlan::describe() const {
  return fmt::format("indexer_logits_paged {} B={} next_n={} block_kv={} num_blocks={} max_blocks={} {}{}",
                     common_text(*this), shape.b, shape.next_n, shape.block_kv, shape.num_blocks, shape.max_blocks,
                     fp8_name(shape.fp8), ok ? "" : " REFUSED: " + reason);
}

IndexerPlan make_indexer_plan(const IndexerShape& s, const port::ArchProfile& arch, IndexerVariant v) {
  IndexerPlan p;
  p.shape = s;
  p.variant = v;
  p.fp8 = s.fp8;
  if (v == IndexerVariant::mask_broadcast_heads) {
    p.reason = "variant mask_broadcast_heads belongs to the paged kernel";
    return p;
  }
  if (s.s_kv < 0 || s.max_seqlen_k < 0) {
    p.reason = fmt::format("S_kv = {} and max_seqlen_k = {} must be >= 0", s.s_kv, s.max_seqlen_k);
    return p;
  }
  if (s.max_seqlen_k > 0 && s.clean_logits) {
    p.reason = "compressed logits (max_seqlen_k > 0) are incompatible with clean_logits = true";
    return p;
  }
  const std::int64_t width = s.max_seqlen_k > 0 ? s.max_seqlen_k : s.s_kv;
  p.reason = plan_common(p, s.s, s.h, s.d, width, s.out_row_stride, s.dot_bf16, arch);
  p.ok = p.reason.empty();
  return p;
}

PagedPlan make_paged_plan(const PagedShape& s, const port::ArchProfile& arch, IndexerVariant v) {
  PagedPlan p;
  p.shape = s;
  p.variant = v;
  p.fp8 = s.fp8;
  if (v == IndexerVariant::ke_off_by_one) return refuse(p, "variant ke_off_by_one belongs to the non-paged kernel");
  if (s.clean_logits) return refuse(p, "clean_logits must be false for the paged kernel (ops.md §4.2)");
  if (s.b < 0 || s.next_n < 1) return refuse(p, fmt::format("B = {} must be >= 0 and next_n = {} >= 1", s.b, s.next_n));
  if (s.block_kv < 1 || s.block_kv % 4 != 0)
    return refuse(p, fmt::format("block_kv = {} must be a positive multiple of 4: a cache block of block_kv·(D + 4) bytes "
                              "must keep every key row 16-byte aligned", s.block_kv));
  if (s.num_blocks < 0 || s.max_blocks < 0 || s.max_context_len < 0)
    return refuse(p, fmt::format("num_blocks = {}, max_blocks = {}, max_context_len = {} must be >= 0", s.num_blocks,
                              s.max_blocks, s.max_context_len));
  p.reason = plan_common(p, s.b * s.next_n, s.h, s.d, s.max_context_len, s.out_row_stride, s.dot_bf16, arch);
  if (!p.reason.empty()) return p;
  p.block_bytes = static_cast<std::size_t>(s.block_kv * (s.d + 4));
  p.cache_bytes = static_cast<std::size_t>(s.num_blocks) * p.block_bytes;
  p.ok = true;
  return p;
}

bool can_implement(const IndexerShape& s, const port::ArchProfile& arch) { return make_indexer_plan(s, arch).ok; }
bool can_implement(const PagedShape& s, const port::ArchProfile& arch) { return make_paged_plan(s, arch).ok; }

}  // namespace dsv4::kernels::indexer
