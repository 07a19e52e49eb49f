// Host-plan expectations per kernel family (see amd_kernel_plans.hpp). The numbers come from the plans
// themselves (kernels/<op>/*_plan.hpp), never re-derived here: for each family a sweep over the shapes its
// dispatch predicate admits gives the largest dynamic LDS, and the plan's static LDS is what its kernel declares
// through DSV4_LDS (the skinny GEMM declares none: all of its LDS is the dynamic lds_alloc_bytes). The entries of
// the later families (per_block_quant_fp8, inv_rope_fp8_quant, dequant_fp8, kv_cache_write, topk,
// fp8_gemm_blockscaled / fp8_einsum) are in amd_kernel_plans_more.cpp; the family table below lists all of them.
#include "tools/dsv4check/amd_kernel_plans.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/port/arch.hpp"
#include "kernels/indexer_logits/indexer_plan.hpp"
#include "kernels/merge_attn_states/merge_plan.hpp"
#include "kernels/quant_fp8/quant_plan.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"
#include "kernels/sparse_mla_prefill/sparse_prefill_plan.hpp"
#include "kernels/sparse_mla_decode/smla_plan.hpp"
#include "tools/dsv4check/amd_kernel_plans_more.hpp"

namespace dsv4::amd {

// The arch profile a plan is made for: gfx90a has gfx942's LDS capacity (64 KiB) and wave size, and the plans
// have no gfx90a profile of their own.
const port::ArchProfile& plans::plan_profile(std::string_view arch) {
  return arch == "gfx950" ? port::kGfx950 : port::kGfx942;
}

namespace {

using plans::plan_profile;

// Skinny GEMM: the fixed variant over N 1..128, a K grid through every shard-count and CHUNKK boundary up to
// 64 Ki, M from one tile to many, both CHUNKK choices forced and the rule. Returns the largest lds_alloc_bytes
// and the (common) block size of the admitted plans.
KernelExpectation skinny_expectation(std::string_view arch) {
  namespace sk = dsv4::kernels::skinny;
  const port::ArchProfile& prof = plan_profile(arch);
  KernelExpectation e;
  e.static_lds = 0;
  e.source = "skinny plan sweep (" + std::string(prof.name) + " profile)";
  std::size_t admitted = 0;
  for (std::int64_t n = 1; n <= 128; ++n)
    for (std::int64_t k : {8, 64, 520, 1024, 2048, 3080, 4096, 5120, 7168, 8192, 12288, 16384, 24576, 32768, 65536})
      for (std::int64_t m : {16, 64, 256, 1024, 4096, 16384})
        for (int chunkk : {0, 1, 2}) {
          sk::SkinnyShape s;
          s.n = n;
          s.k = k;
          s.m = m;
          sk::SkinnyOptions o;
          o.force_chunkk = chunkk;
          const sk::SkinnyPlan p = sk::make_plan(s, prof, o);
          if (!p.ok) continue;
          ++admitted;
          e.dynamic_lds = std::max(e.dynamic_lds, p.lds_alloc_bytes);
          e.workgroup_size = std::max(e.workgroup_size, p.block);
        }
  e.source += ", " + std::to_string(admitted) + " admitted plans";
  return e;
}

// merge_attn_states: the plan says no LDS (lds_bytes 0); the sweep confirms it over dtypes and head sizes.
KernelExpectation merge_expectation(std::string_view arch) {
  namespace mg = dsv4::kernels::merge;
  const port::ArchProfile& prof = plan_profile(arch);
  KernelExpectation e;
  e.static_lds = 0;
  std::size_t admitted = 0;
  for (mg::ElemType t : {mg::ElemType::f32, mg::ElemType::f16, mg::ElemType::bf16})
    for (std::int64_t d : {64, 128, 512})
      for (std::int64_t tokens : {1, 7, 4096}) {
        mg::MergeShape s;
        s.t = tokens;
        s.h = 16;
        s.d = d;
        s.dtype = t;
        const mg::MergePlan p = mg::make_merge_plan(s, prof);
        if (!p.ok) continue;
        ++admitted;
        e.dynamic_lds = std::max(e.dynamic_lds, p.lds_bytes);
        e.workgroup_size = std::max(e.workgroup_size, p.block);
      }
  e.source = "merge plan sweep (" + std::string(prof.name) + " profile), " + std::to_string(admitted) +
             " admitted plans";
  return e;
}

// per_token_group_quant_fp8: the plan says no LDS; the sweep covers dtypes, group sizes and scale layouts.
KernelExpectation quant_expectation(std::string_view arch) {
  namespace qu = dsv4::kernels::quant;
  const port::ArchProfile& prof = plan_profile(arch);
  KernelExpectation e;
  e.static_lds = 0;
  std::size_t admitted = 0;
  for (qu::InputType t : {qu::InputType::bf16, qu::InputType::f16, qu::InputType::f32})
    for (std::int64_t g : {32, 128, 4096})
      for (qu::ScaleLayout l : {qu::ScaleLayout::row_major, qu::ScaleLayout::mn_major})
        for (std::int64_t m : {1, 33, 8192}) {
          qu::QuantShape s;
          s.m = m;
          s.k = 4096;
          s.dtype = t;
          qu::QuantOptions o;
          o.group_size = g;
          o.layout = l;
          const qu::QuantPlan p = qu::make_quant_plan(s, prof, o);
          if (!p.ok) continue;
          ++admitted;
          e.dynamic_lds = std::max(e.dynamic_lds, p.lds_bytes);
          e.workgroup_size = std::max(e.workgroup_size, p.block);
        }
  e.source = "quant plan sweep (" + std::string(prof.name) + " profile), " + std::to_string(admitted) +
             " admitted plans";
  return e;
}

// sparse_mla_decode: the split kernel's dynamic LDS (q + key tile + p + stats + indices) over both layouts, head
// counts, top-k sizes and every head-group / key-tile choice; for the combine kernel (launched with 0 dynamic
// bytes) the plan's lds_combine_bytes over the same sweep. Workgroup size 0: each object's own (256 split, 128
// combine).
KernelExpectation smla_sweep(std::string_view arch, bool combine) {
  namespace sm = dsv4::kernels::smla;
  const port::ArchProfile& prof = plan_profile(arch);
  KernelExpectation e;
  e.static_lds = 0;
  std::size_t admitted = 0;
  for (sm::Layout l : {sm::Layout::v32, sm::Layout::model1})
    for (std::int64_t h : {1, 4, 16, 64, 128})
      for (std::int64_t topk : {64, 2048})
        for (int hg : {0, 4, 16, 32})
          for (int kt : {0, 8, 16, 32, 64}) {
            sm::SmlaShape s;
            s.b = 4;
            s.h_q = h;
            s.layout = l;
            s.topk = topk;
            s.cache = {64, 64, 0};
            s.extra_topk = 128;
            s.extra_cache = {16, 64, 0};
            sm::SmlaOptions o;
            o.heads_per_group = hg;
            o.key_tile = kt;
            const sm::SmlaPlan p = sm::make_plan(s, prof, o);
            if (!p.ok) continue;
            ++admitted;
            e.dynamic_lds = std::max(e.dynamic_lds, combine ? p.lds_combine_bytes : p.lds_split_bytes);
          }
  e.source = std::string(combine ? "sparse_mla_decode combine" : "sparse_mla_decode split") + " plan sweep (" +
             std::string(prof.name) + " profile), " + std::to_string(admitted) + " admitted plans";
  return e;
}
KernelExpectation smla_expectation(std::string_view arch) { return smla_sweep(arch, false); }
KernelExpectation smla_combine_expectation(std::string_view arch) { return smla_sweep(arch, true); }

// sparse_mla_prefill: the dynamic LDS (q stage + kv tile + scores + row indices + stats) over both d_qk, head
// counts and top-k sizes, with the plan's own tile choice and every forced tile; workgroup 256.
KernelExpectation sparse_prefill_expectation(std::string_view arch) {
  namespace sp = dsv4::kernels::sparse_prefill;
  const port::ArchProfile& prof = plan_profile(arch);
  KernelExpectation e;
  e.static_lds = 0;
  std::size_t admitted = 0;
  for (std::int64_t d_qk : {512, 576})
    for (std::int64_t h : {1, 8, 16, 64, 128})
      for (std::int64_t topk : {16, 100, 512, 2048})
        for (int tile : {0, 16, 32, 64, 128}) {
          sp::PrefillShape s;
          s.s_q = 64;
          s.h_q = h;
          s.d_qk = d_qk;
          s.d_v = 512;
          s.s_kv = 4096;
          s.topk = topk;
          sp::PrefillOptions o;
          o.force_tile_k = tile;
          const sp::PrefillPlan p = sp::make_plan(s, prof, o);
          if (!p.ok) continue;
          ++admitted;
          e.dynamic_lds = std::max(e.dynamic_lds, p.lds_bytes);
          e.workgroup_size = std::max(e.workgroup_size, p.block);
        }
  e.source = "sparse_mla_prefill plan sweep (" + std::string(prof.name) + " profile), " + std::to_string(admitted) +
             " admitted plans";
  return e;
}

// indexer_logits / indexer_logits_paged: dynamic LDS = q as fp32 (H·D·4) + weights (H·4) over every head count up
// to 256 and D in {32, 64, 128}, both plans (the paged one adds nothing to LDS); workgroup kKeysPerBlock.
KernelExpectation indexer_expectation(std::string_view arch) {
  namespace ix = dsv4::kernels::indexer;
  const port::ArchProfile& prof = plan_profile(arch);
  KernelExpectation e;
  e.static_lds = 0;
  std::size_t admitted = 0;
  for (std::int64_t h = 1; h <= 256; ++h)
    for (std::int64_t d : {32, 64, 128}) {
      ix::IndexerShape s;
      s.s = 4;
      s.s_kv = 300;
      s.h = h;
      s.d = d;
      ix::PagedShape ps;
      ps.b = 2;
      ps.h = h;
      ps.d = d;
      ps.num_blocks = 8;
      ps.max_blocks = 4;
      ps.max_context_len = 256;
      const ix::IndexerPlan p = ix::make_indexer_plan(s, prof);
      const ix::PagedPlan pp = ix::make_paged_plan(ps, prof);
      for (const ix::CommonPlan* c : {static_cast<const ix::CommonPlan*>(&p), static_cast<const ix::CommonPlan*>(&pp)}) {
        if (!c->ok) continue;
        ++admitted;
        e.dynamic_lds = std::max(e.dynamic_lds, c->lds_bytes);
        e.workgroup_size = std::max(e.workgroup_size, c->block);
      }
    }
  e.source = "indexer plan sweep (" + std::string(prof.name) + " profile), " + std::to_string(admitted) +
             " admitted plans";
  return e;
}

struct Family {
  std::string_view name_contains;  // in the demangled kernel name; the first matching entry applies
  KernelExpectation (*expectation)(std::string_view arch);
};
constexpr Family kFamilies[] = {
    {"dsv4::kernels::skinny::", skinny_expectation},
    {"dsv4::kernels::indexer::", indexer_expectation},
    {"dsv4::kernels::sparse_prefill::", sparse_prefill_expectation},
    {"dsv4::kernels::merge::", merge_expectation},
    {"dsv4::kernels::block_quant::", plans::block_quant_expectation},  // before quant:: (not a substring of it)
    {"dsv4::kernels::quant::", quant_expectation},
    {"dsv4::kernels::smla::(anonymous namespace)::smla_combine_kernel", smla_combine_expectation},  // before smla::
    {"dsv4::kernels::smla::", smla_expectation},
    {"dsv4::kernels::inv_rope::", plans::inv_rope_expectation},
    {"dsv4::kernels::dequant::", plans::dequant_expectation},
    {"dsv4::kernels::kvw::", plans::kv_write_expectation},
    {"dsv4::kernels::topk::", plans::topk_expectation},
    {"dsv4::kernels::bsgemm::", plans::bsgemm_expectation},  // fp8_gemm_blockscaled and fp8_einsum (one kernel)
};

}  // namespace

std::optional<KernelExpectation> plan_expectation(std::string_view demangled, std::string_view arch) {
  for (const Family& f : kFamilies)
    if (demangled.find(f.name_contains) != std::string_view::npos) return f.expectation(arch);
  return std::nullopt;
}

}  // namespace dsv4::amd
