// Plan of the split-KV sparse MLA decode kernel; see smla_plan.hpp.
#include "kernels/sparse_mla_decode/smla_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::smla {

namespace {
std::size_t align16(std::size_t n) { return (n + 15) / 16 * 16; }
std::size_t align256(std::size_t n) { return (n + 255) / 256 * 256; }

std::int64_t default_block_stride(Layout l, std::int64_t bs) {
  const std::int64_t need = bs * (l == Layout::v32 ? 656 : 584);
  return l == Layout::v32 ? need : (need + 575) / 576 * 576;
}
}  // namespace

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::gather_invalid_rows: return "gather_invalid_rows";
    case Variant::combine_no_inf_guard: return "combine_no_inf_guard";
    case Variant::e8m0_shift23: return "e8m0_shift23";
    case Variant::fixed: break;
  }
  return "default";
}

std::optional<Variant> parse_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return Variant::fixed;
  if (s == "gather_invalid_rows") return Variant::gather_invalid_rows;
  if (s == "combine_no_inf_guard") return Variant::combine_no_inf_guard;
  if (s == "e8m0_shift23") return Variant::e8m0_shift23;
  return std::nullopt;
}

std::vector<LdsPhase> SmlaPlan::lds_phases() const {
  return {{"split: q tile (bf16)", lds_q},         {"split: key tile (dequantized bf16)", lds_kv},
          {"split: probabilities", lds_p},         {"split: softmax stats", lds_stats},
          {"split: tile indices", lds_index},      {"split: total", lds_split_bytes},
          {"combine", lds_combine_bytes}};
}

std::string SmlaPlan::describe() const {
  const SmlaShape& s = shape;
  return fmt::format("sparse_mla_decode {} {} b={} s_q={} h_q={} topk={} extra_topk={} fp8={} HG={} KT={} "
                     "splits={} chunk={} grid=({},{},{})+({},{}) lds={}/{} ws={} variant={}{}",
                     port::profile(arch).name, s.layout == Layout::v32 ? "V32_FP8Sparse" : "MODEL1_FP8Sparse", s.b,
                     s.s_q, s.h_q, s.topk, s.extra_topk, s.fp8 == Fp8Kind::e4m3fn ? "e4m3fn" : "e4m3fnuz", heads_per_group, key_tile,
                     num_splits, chunk, split_grid_x, split_grid_y, split_grid_z, combine_grid_x, combine_grid_y,
                     lds_split_bytes, lds_capacity, workspace_bytes, variant_name(options.variant),
                     ok ? "" : " REFUSED: " + reason);
}

SmlaPlan make_plan(const SmlaShape& s, const port::ArchProfile& arch, const SmlaOptions& opt) {
  SmlaPlan p;
  p.shape = s;
  p.options = opt;
  p.arch = arch.arch;
  p.lds_capacity = arch.lds_bytes_per_block;
  p.d_qk = s.d_qk();
  if (s.b < 0 || s.s_q < 0 || s.h_q < 1)
    return refuse(p, fmt::format("b = {} and s_q = {} must be >= 0, h_q = {} >= 1", s.b, s.s_q, s.h_q));
  if (s.head_dim_v != kDv) return refuse(p, fmt::format("head_dim_v = {}: the kernel supports 512 only", s.head_dim_v));
  if (s.topk < 0 || s.extra_topk < 0)
    return refuse(p, fmt::format("topk = {}, extra_topk = {} must be >= 0", s.topk, s.extra_topk));
  const double sc = s.softmax_scale == 0 ? 1.0 / std::sqrt(static_cast<double>(p.d_qk)) : s.softmax_scale;
  if (!std::isfinite(sc)) return refuse(p, fmt::format("softmax_scale = {} must be finite", sc));
  p.scale = static_cast<float>(sc);
  auto check_cache = [&](const CacheShape& c, const char* name, std::int64_t& stride) -> std::string {
    if (c.num_blocks < 0 || c.block_size < 1)
      return fmt::format("{}: num_blocks = {} must be >= 0 and block_size = {} >= 1", name, c.num_blocks, c.block_size);
    const std::int64_t need = c.block_size * s.bytes_per_token();
    stride = c.block_stride == 0 ? default_block_stride(s.layout, c.block_size) : c.block_stride;
    if (c.num_blocks > 1 && stride < need)
      return fmt::format("{}: block stride {} B < {} B needed by {} tokens", name, stride, need, c.block_size);
    if (stride % 16 != 0)
      return fmt::format("{}: block stride {} B is not a multiple of 16 (the gather uses 16-byte loads)", name, stride);
    if (c.num_blocks * c.block_size >= (std::int64_t{1} << 31))
      return fmt::format("{}: {} slots exceed the int32 slot range", name, c.num_blocks * c.block_size);
    return {};
  };
  if (auto e = check_cache(s.cache, "k_cache", p.main_block_stride); !e.empty()) return refuse(p, e);
  if (s.extra_topk > 0)
    if (auto e = check_cache(s.extra_cache, "extra_k_cache", p.extra_block_stride); !e.empty()) return refuse(p, e);

  p.heads_per_group = opt.heads_per_group != 0 ? opt.heads_per_group : (s.h_q <= 4 ? 4 : 16);
  if (p.heads_per_group != 4 && p.heads_per_group != 16 && p.heads_per_group != 32)
    return refuse(p, fmt::format("heads_per_group = {} must be 4, 16 or 32", p.heads_per_group));
  p.key_tile = opt.key_tile != 0 ? opt.key_tile : 16;
  if (p.key_tile < 8 || p.key_tile > 64 || p.key_tile % 8 != 0)
    return refuse(p, fmt::format("key_tile = {} must be a multiple of 8 in [8, 64]", p.key_tile));
  p.head_groups = static_cast<int>((s.h_q + p.heads_per_group - 1) / p.heads_per_group);
  p.threads_per_head = kSplitThreads / p.heads_per_group;
  p.d_per_thread = kDv / p.threads_per_head;
  p.total_positions = s.topk + s.extra_topk;

  const std::int64_t tokens = s.tokens();
  const std::int64_t max_useful = std::max<std::int64_t>(1, (p.total_positions + p.key_tile - 1) / p.key_tile);
  if (opt.num_splits != 0) {
    if (opt.num_splits < 1 || opt.num_splits > kMaxSplits)
      return refuse(p, fmt::format("num_splits = {} must be in [1, {}]", opt.num_splits, kMaxSplits));
    p.num_splits = opt.num_splits;
  } else {
    const std::int64_t base = std::max<std::int64_t>(1, tokens * p.head_groups);
    const std::int64_t want = (2 * arch.compute_units + base - 1) / base;
    p.num_splits = static_cast<int>(std::clamp<std::int64_t>(want, 1, std::min<std::int64_t>(max_useful, 64)));
  }
  p.chunk = std::max<std::int64_t>(1, (p.total_positions + p.num_splits - 1) / p.num_splits);

  if (tokens > 65535) return refuse(p, fmt::format("b·s_q = {} exceeds the grid's y limit 65535", tokens));
  if (p.head_groups > 65535 || s.h_q > 65535) return refuse(p, fmt::format("h_q = {} exceeds the grid limit 65535", s.h_q));
  p.split_grid_x = p.num_splits;
  p.split_grid_y = tokens;
  p.split_grid_z = p.head_groups;
  p.combine_grid_x = tokens;
  p.combine_grid_y = s.h_q;

  p.lds_q = align16(static_cast<std::size_t>(p.heads_per_group) * p.d_qk * 2);
  p.lds_kv = align16(static_cast<std::size_t>(p.key_tile) * p.d_qk * 2);
  p.lds_p = align16(static_cast<std::size_t>(p.heads_per_group) * p.key_tile * 4);
  p.lds_stats = align16(static_cast<std::size_t>(p.heads_per_group) * 3 * 4);
  p.lds_index = align16(static_cast<std::size_t>(p.key_tile) * 2 * 4);
  p.lds_split_bytes = p.lds_q + p.lds_kv + p.lds_p + p.lds_stats + p.lds_index;
  p.lds_combine_bytes = 0;
  if (p.lds_split_bytes > p.lds_capacity)
    return refuse(p, fmt::format("split kernel LDS {} B (q {} + keys {} + p {} + stats {} + indices {}) exceeds {} "
                              "LDS per block {} B (heads_per_group {}, key_tile {})",
                              p.lds_split_bytes, p.lds_q, p.lds_kv, p.lds_p, p.lds_stats, p.lds_index, arch.name,
                              p.lds_capacity, p.heads_per_group, p.key_tile));

  const std::size_t parts = static_cast<std::size_t>(tokens) * p.num_splits * static_cast<std::size_t>(s.h_q);
  p.ws_out_bytes = parts * kDv * 4;
  p.lse_offset = align256(p.ws_out_bytes);
  p.ws_lse_bytes = parts * 4;
  p.workspace_bytes = p.lse_offset + p.ws_lse_bytes;
  if (p.workspace_bytes > kMaxWorkspaceBytes)
    return refuse(p, fmt::format("workspace {} B (splits {} x tokens {} x h_q {} partials) exceeds the limit {} B",
                              p.workspace_bytes, p.num_splits, tokens, s.h_q, kMaxWorkspaceBytes));
  p.q_bytes = static_cast<std::size_t>(tokens * s.h_q) * p.d_qk * 2;
  p.out_bytes = static_cast<std::size_t>(tokens * s.h_q) * kDv * 2;
  p.lse_bytes = static_cast<std::size_t>(tokens * s.h_q) * 4;
  p.ok = true;
  return p;
}

bool can_implement(const SmlaShape& shape, const port::ArchProfile& arch, const SmlaOptions& opt) {
  return make_plan(shape, arch, opt).ok;
}

std::size_t get_workspace_size(const SmlaShape& shape, const port::ArchProfile& arch, const SmlaOptions& opt) {
  const SmlaPlan p = make_plan(shape, arch, opt);
  return p.ok ? p.workspace_bytes : 0;
}

}  // namespace dsv4::kernels::smla
