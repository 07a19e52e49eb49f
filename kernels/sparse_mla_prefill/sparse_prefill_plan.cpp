// The sparse_mla_prefill host plan: heads per workgroup, LDS tile of gathered kv rows per arch, LDS regions,
// grid. See sparse_prefill_plan.hpp.
#include "kernels/sparse_mla_prefill/sparse_prefill_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::sparse_prefill {

const char* variant_name(PrefillVariant v) {
  switch (v) {
    case PrefillVariant::fixed: return "default";
    case PrefillVariant::clamp_invalid: return "clamp_invalid";
    case PrefillVariant::drop_sink: return "drop_sink";
    case PrefillVariant::log2_lse: return "log2_lse";
  }
  return "?";
}

std::optional<PrefillVariant> parse_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return PrefillVariant::fixed;
  if (s == "clamp_invalid") return PrefillVariant::clamp_invalid;
  if (s == "drop_sink") return PrefillVariant::drop_sink;
  if (s == "log2_lse") return PrefillVariant::log2_lse;
  return std::nullopt;
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t next_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

struct Footprint {
  std::size_t q, kv, score, index, stats;
  std::size_t total() const { return q + kv + score + index + stats; }
};

Footprint footprint(int heads, int tile_k, std::int64_t d_qk) {
  const auto pitch = static_cast<std::size_t>(d_qk + kRowPad);
  Footprint f;
  f.q = static_cast<std::size_t>(heads) * pitch * 2;
  f.kv = static_cast<std::size_t>(tile_k) * pitch * 2;
  f.score = static_cast<std::size_t>(heads) * tile_k * 4;
  f.index = static_cast<std::size_t>(tile_k) * 4;
  f.stats = (3 * static_cast<std::size_t>(heads) * 4 + 15) / 16 * 16;  // running max, sum, rescale factor
  return f;
}
static_assert(lds_footprint(16, 32, 576) == 18688 + 37376 + 2048 + 128 + 192);

}  // namespace


PrefillPlan make_plan(const PrefillShape& s, const port::ArchProfile& arch, const PrefillOptions& opt) {
  PrefillPlan p;
  p.arch = arch.arch;
  p.shape = s;
  p.options = opt;
  p.lds_capacity = arch.lds_bytes_per_block;
  if (s.s_q < 0 || s.h_q < 1 || s.s_kv < 0 || s.topk < 0)
    return refuse(p, fmt::format("s_q = {}, s_kv = {}, topk = {} must be >= 0 and h_q = {} >= 1", s.s_q, s.s_kv, s.topk,
                              s.h_q));
  if (s.d_qk < kVec || s.d_qk % kVec != 0 || s.d_qk > 1024)
    return refuse(p, fmt::format("d_qk = {} must be a multiple of 8 in [8, 1024] (16-byte row vectors)", s.d_qk));
  if (s.d_v < kVec || s.d_v % kVec != 0 || s.d_v > s.d_qk)
    return refuse(p, fmt::format("d_v = {} must be a multiple of 8 in [8, d_qk = {}]", s.d_v, s.d_qk));
  if (s.qh() < s.d_qk || s.qh() % kVec != 0 || s.qs() < 0 || s.qs() % kVec != 0)
    return refuse(p, fmt::format("q strides (token {}, head {}) must be multiples of 8 with head stride >= d_qk = {} "
                              "(16-byte aligned rows)", s.qs(), s.qh(), s.d_qk));
  if (s.kvs() < s.d_qk || s.kvs() % kVec != 0)
    return refuse(p, fmt::format("kv row stride {} must be a multiple of 8 and >= d_qk = {}", s.kvs(), s.d_qk));
  if (s.s_kv > 0x7fffffff || s.topk > 0x7fffffff)
    return refuse(p, fmt::format("s_kv = {} and topk = {} must fit int32 (indices are int32)", s.s_kv, s.topk));

  p.pitch = static_cast<int>(s.d_qk) + kRowPad;
  p.col_groups = static_cast<int>(s.d_v / kVec);
  p.head_slots = kBlockThreads / p.col_groups;  // d_v <= 1024 gives col_groups <= 128, head_slots >= 2
  const int max_heads = std::min(kMaxHeadsPerBlock, p.head_slots * kMaxHeadsPerThread);
  if (opt.force_heads != 0 && (opt.force_heads < 1 || opt.force_heads > max_heads))
    return refuse(p, fmt::format("force_heads = {} outside [1, {}] (P·V accumulators: {} heads per thread x {} column "
                              "slices)", opt.force_heads, max_heads, kMaxHeadsPerThread, p.col_groups));
  if (opt.force_tile_k != 0 && (opt.force_tile_k < 16 || opt.force_tile_k % 16 != 0 || opt.force_tile_k > 256))
    return refuse(p, fmt::format("force_tile_k = {} must be a multiple of 16 in [16, 256]", opt.force_tile_k));
  int heads = opt.force_heads != 0 ? opt.force_heads
                                   : static_cast<int>(std::min<std::int64_t>(s.h_q, max_heads));
  // Largest tile that fits, no larger than topk needs; shrink the head group only if even 16 rows do not fit.
  const std::int64_t cap = std::max<std::int64_t>(16, next_pow2(s.topk));
  int tile = 0;
  for (;;) {
    if (opt.force_tile_k != 0) {
      if (lds_footprint(heads, opt.force_tile_k, s.d_qk) <= arch.lds_bytes_per_block) tile = opt.force_tile_k;
    } else {
      for (int t : kTileCandidates)
        if (t <= cap && lds_footprint(heads, t, s.d_qk) <= arch.lds_bytes_per_block) {
          tile = t;
          break;
        }
    }
    if (tile != 0 || opt.force_heads != 0 || heads == 1) break;
    heads = std::max(1, heads / 2);
  }
  const int want_tile = opt.force_tile_k != 0 ? opt.force_tile_k : 16;
  const Footprint f = footprint(heads, tile != 0 ? tile : want_tile, s.d_qk);
  p.heads = heads;
  p.tile_k = tile != 0 ? tile : want_tile;
  p.q_bytes = f.q;
  p.kv_bytes = f.kv;
  p.score_bytes = f.score;
  p.index_bytes = f.index;
  p.stats_bytes = f.stats;
  p.lds_bytes = f.total();
  if (tile == 0)
    return refuse(p, fmt::format("LDS: q stage {} B + kv tile {} B ({} rows x {} B) + scores {} B + row indices {} B + "
                              "softmax stats {} B = {} B exceeds {} capacity {} B",
                              f.q, f.kv, p.tile_k, p.pitch * 2, f.score, f.index, f.stats, f.total(), arch.name,
                              arch.lds_bytes_per_block));
  p.heads_per_thread = (heads + p.head_slots - 1) / p.head_slots;
  p.head_groups = ceil_div(s.h_q, heads);
  p.k_tiles = ceil_div(s.topk, p.tile_k);
  p.grid_x = s.s_q;
  p.grid_y = p.head_groups;
  if (p.grid_x > 0x7fffffff) return refuse(p, fmt::format("grid.x = s_q = {} exceeds 2^31 - 1", p.grid_x));
  if (p.grid_y > 65535) return refuse(p, fmt::format("grid.y = {} head groups exceeds 65535", p.grid_y));
  p.workspace_bytes = 0;
  p.ok = true;
  return p;
}

bool can_implement(const PrefillShape& shape, const port::ArchProfile& arch, const PrefillOptions& opt) {
  return make_plan(shape, arch, opt).ok;
}

std::vector<LdsRegion> PrefillPlan::lds_regions() const {
  std::vector<LdsRegion> r;
  std::size_t off = 0;
  for (const auto& [name, bytes] : {std::pair<const char*, std::size_t>{"q stage", q_bytes}, {"kv tile", kv_bytes},
                                    {"scores", score_bytes}, {"row indices", index_bytes},
                                    {"softmax stats", stats_bytes}}) {
    r.push_back({name, off, bytes});
    off += bytes;
  }
  return r;
}

std::string PrefillPlan::describe() const {
  std::string s = fmt::format(
      "sparse_mla_prefill[{}] {} s_q={} h_q={} d_qk={} d_v={} s_kv={} topk={}: heads/wg={} head_groups={} tile_k={} "
      "k_tiles={} pitch={} col_slices={} head_slots={} heads/thread={} grid={}x{} block={} LDS q/kv/scores/idx/stats="
      "{}/{}/{}/{}/{} total {} of {} workspace={}",
      variant_name(options.variant), port::profile(arch).name, shape.s_q, shape.h_q, shape.d_qk, shape.d_v,
      shape.s_kv, shape.topk, heads, head_groups, tile_k, k_tiles, pitch, col_groups, head_slots, heads_per_thread,
      grid_x, grid_y, block, q_bytes, kv_bytes, score_bytes, index_bytes, stats_bytes, lds_bytes, lds_capacity,
      workspace_bytes);
  if (!ok && !reason.empty()) s += " REFUSED: " + reason;
  return s;
}

}  // namespace dsv4::kernels::sparse_prefill
