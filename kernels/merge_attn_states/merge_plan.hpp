// Host plan of the merge_attn_states kernel (ops.md §1): one thread per 16-byte pack of one (token, head) row,
// i.e. 16 / sizeof(elem) elements (8 bf16/fp16, 4 fp32); the thread reads both LSEs, computes the fp32 weights and
// writes its pack (and, for pack 0, output_lse). Needs D and the head stride to be multiples of the pack (vLLM's C++
// kernel has the same dispatch rule, head_size % pack == 0); anything else is refused with the reason. No LDS,
// no workspace. Pure C++, no device code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::merge {

enum class ElemType { f32, f16, bf16 };
enum class BothEmpty { zeros, copy_prefix };
enum class Fp8Out { e4m3fn, e4m3fnuz };

// Deliberately buggy variants for the bug zoo; never the default, selectable at run time.
enum class MergeVariant {
  fixed,
  nan_both_empty,  // known-bugs #6: no both-empty branch, exp(-inf - -inf) = NaN reaches output and lse
};

struct MergeShape {
  std::int64_t t = 1, h = 1, d = 128;
  std::int64_t head_stride = 0;  // elements between heads of one token (>= d; 0 = d); token stride = h * head_stride
  // LSE element strides ([H, T] indexing through real strides: a transposed [T, H] view has stride_h = 1).
  std::int64_t p_lse_stride_h = 0, p_lse_stride_t = 0;  // 0, 0 = contiguous [H, T]
  std::int64_t s_lse_stride_h = 0, s_lse_stride_t = 0;
  ElemType dtype = ElemType::bf16;
  std::int64_t hs() const { return head_stride == 0 ? d : head_stride; }
};

struct MergeOptions {
  BothEmpty both_empty = BothEmpty::zeros;
  bool pos_inf_empty = true;                           // +inf LSE means an empty split (FA2); false: raw
  std::optional<std::int64_t> prefill_tokens_with_context;  // unset: every token is merged
  std::optional<double> output_scale;                  // set: FP8 output, val * fl(1/scale), saturate, RNE
  Fp8Out fp8 = Fp8Out::e4m3fn;
  bool output_lse = true;                              // false: output_lse is not written (pointer may be null)
  MergeVariant variant = MergeVariant::fixed;
};

inline constexpr int kMergeBlockThreads = 128;

struct MergePlan {
  bool ok = false;
  std::string reason;
  MergeShape shape;
  MergeOptions options;
  port::Arch arch = port::Arch::gfx950;

  int elem_bytes = 2;
  int out_elem_bytes = 2;
  int pack = 8;                      // elements per 16-byte input pack
  std::int64_t packs_per_head = 0;   // d / pack
  std::int64_t threads = 0;          // t * h * packs_per_head
  std::int64_t merged_tokens = 0;    // tokens merged (the rest copy the suffix)
  float inv_scale = 1.f;             // fl32(1 / output_scale)
  float fp8_max = 448.f;
  std::int64_t grid = 1;
  int block = kMergeBlockThreads;
  std::size_t lds_bytes = 0;
  std::size_t workspace_bytes = 0;
  std::size_t out_bytes = 0;         // t * h * head_stride * out_elem_bytes
  std::size_t in_bytes = 0;          // t * h * head_stride * elem_bytes

  std::string describe() const;
};

MergePlan make_merge_plan(const MergeShape& shape, const port::ArchProfile& arch, const MergeOptions& opt = {});
bool can_implement(const MergeShape& shape, const port::ArchProfile& arch, const MergeOptions& opt = {});

const char* variant_name(MergeVariant v);
std::optional<MergeVariant> parse_merge_variant(const std::string& s);

// The plan sweep this kernel offers the AMD budget check (merge_plan_sweep.cpp).
PlanSweep merge_plan_sweep();

}  // namespace dsv4::kernels::merge
