// Plan of the merge_attn_states kernel; see merge_plan.hpp.
#include "kernels/merge_attn_states/merge_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::merge {

const char* variant_name(MergeVariant v) { return v == MergeVariant::nan_both_empty ? "nan_both_empty" : "default"; }

std::optional<MergeVariant> parse_merge_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return MergeVariant::fixed;
  if (s == "nan_both_empty") return MergeVariant::nan_both_empty;
  return std::nullopt;
}

std::string MergePlan::describe() const {
  const char* dt = shape.dtype == ElemType::f32 ? "f32" : (shape.dtype == ElemType::f16 ? "f16" : "bf16");
  return fmt::format("merge_attn_states {} T={} H={} D={} head_stride={} {} pack={} merged_tokens={} out={} "
                     "both_empty={} grid={} block={} variant={}{}",
                     port::profile(arch).name, shape.t, shape.h, shape.d, shape.hs(), dt, pack, merged_tokens,
                     options.output_scale ? (options.fp8 == Fp8Out::e4m3fn ? "e4m3fn" : "e4m3fnuz") : dt,
                     options.both_empty == BothEmpty::zeros ? "zeros" : "copy_prefix", grid, block,
                     variant_name(options.variant), ok ? "" : " REFUSED: " + reason);
}

MergePlan make_merge_plan(const MergeShape& s, const port::ArchProfile& arch, const MergeOptions& opt) {
  MergePlan p;
  p.shape = s;
  p.options = opt;
  p.arch = arch.arch;
  p.elem_bytes = s.dtype == ElemType::f32 ? 4 : 2;
  p.pack = 16 / p.elem_bytes;
  p.out_elem_bytes = opt.output_scale ? 1 : p.elem_bytes;
  if (s.t < 0 || s.h < 0 || s.d <= 0) return refuse(p, fmt::format("T = {}, H = {} must be >= 0 and D = {} > 0", s.t, s.h, s.d));
  if (s.hs() < s.d) return refuse(p, fmt::format("head stride {} must be >= D = {}", s.hs(), s.d));
  if (s.d % p.pack != 0)
    return refuse(p, fmt::format("D = {} is not a multiple of the 16-byte pack ({} elements of {} B): the vector kernel "
                              "needs head_size % pack == 0", s.d, p.pack, p.elem_bytes));
  if (s.hs() % p.pack != 0)
    return refuse(p, fmt::format("head stride {} is not a multiple of the 16-byte pack ({} elements): packs would be "
                              "misaligned", s.hs(), p.pack));
  for (std::int64_t st : {s.p_lse_stride_h, s.p_lse_stride_t, s.s_lse_stride_h, s.s_lse_stride_t})
    if (st < 0) return refuse(p, "negative LSE strides are not supported");
  p.merged_tokens = opt.prefill_tokens_with_context.value_or(s.t);
  if (p.merged_tokens < 0 || p.merged_tokens > s.t)
    return refuse(p, fmt::format("prefill_tokens_with_context = {} must lie in [0, T = {}]", p.merged_tokens, s.t));
  if (opt.output_scale) {
    if (!(std::isfinite(*opt.output_scale) && *opt.output_scale > 0))
      return refuse(p, fmt::format("output_scale = {} must be finite and > 0", *opt.output_scale));
    p.inv_scale = 1.0f / static_cast<float>(*opt.output_scale);
    p.fp8_max = opt.fp8 == Fp8Out::e4m3fn ? 448.f : 240.f;
  }
  p.packs_per_head = s.d / p.pack;
  p.threads = s.t * s.h * p.packs_per_head;
  if (p.threads > (std::int64_t{1} << 40)) return refuse(p, "T * H * D exceeds the kernel's index range");
  p.grid = std::max<std::int64_t>(1, (p.threads + p.block - 1) / p.block);
  if (p.grid > 0x7fffffff) return refuse(p, fmt::format("grid of {} blocks exceeds 2^31 - 1", p.grid));
  p.out_bytes = static_cast<std::size_t>(s.t * s.h * s.hs()) * p.out_elem_bytes;
  p.in_bytes = static_cast<std::size_t>(s.t * s.h * s.hs()) * p.elem_bytes;
  p.ok = true;
  return p;
}

bool can_implement(const MergeShape& shape, const port::ArchProfile& arch, const MergeOptions& opt) {
  return make_merge_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::merge
