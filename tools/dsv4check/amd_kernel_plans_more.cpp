// Host-plan expectations of the kernel families added after the first six (see amd_kernel_plans.hpp; split off from
// amd_kernel_plans.cpp to keep each file short; the family table stays there). As in the first file every number
// comes from the plans (kernels/<op>/*_plan.hpp), never re-derived: each family sweeps the shapes and options its
// plan admits on the arch profile and takes the largest LDS and workgroup size of the admitted plans.
//
// Which plan field feeds which expectation follows the launch: per_block_quant_fp8, inv_rope_fp8_quant, dequant_fp8,
// kv_cache_write and topk launch with 0 dynamic LDS, so their plan's lds_bytes is the kernel's whole (static) LDS
// and is cross-checked against the object's .group_segment_fixed_size; fp8_gemm_blockscaled / fp8_einsum launch
// with plan.lds_bytes of dynamic LDS and declare no static LDS (DSV4_LDS_DYNAMIC only).
#include "tools/dsv4check/amd_kernel_plans_more.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "kernels/dequant_fp8/dequant_plan.hpp"
#include "kernels/fp8_einsum/einsum_plan.hpp"
#include "kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp"
#include "kernels/inv_rope_fp8_quant/inv_rope_plan.hpp"
#include "kernels/kv_cache_write/kv_write_plan.hpp"
#include "kernels/per_block_quant_fp8/per_block_plan.hpp"
#include "kernels/topk/topk_plan.hpp"

namespace dsv4::amd::plans {
namespace {

// Running maxima over the admitted plans of one sweep. The static LDS is one number of the code object, so plans
// that disagree on it are reported in the source text (the largest is what the object is checked against).
struct Tally {
  std::size_t admitted = 0;
  std::size_t dynamic_lds = 0;
  std::optional<std::size_t> static_lo, static_hi;
  int block = 0;

  void add(std::size_t dynamic, std::optional<std::size_t> static_lds, int wg) {
    ++admitted;
    dynamic_lds = std::max(dynamic_lds, dynamic);
    if (static_lds) {
      static_lo = std::min(static_lo.value_or(*static_lds), *static_lds);
      static_hi = std::max(static_hi.value_or(*static_lds), *static_lds);
    }
    block = std::max(block, wg);
  }

  KernelExpectation finish(const std::string& what, const port::ArchProfile& prof) const {
    KernelExpectation e;
    e.dynamic_lds = dynamic_lds;
    e.static_lds = static_hi.value_or(0);
    e.workgroup_size = block;
    e.source = what + " plan sweep (" + std::string(prof.name) + " profile), " + std::to_string(admitted) +
               " admitted plans";
    if (static_lo != static_hi)
      e.source += "; the plans disagree on static LDS (" + std::to_string(*static_lo) + ".." +
                  std::to_string(*static_hi) + " B)";
    return e;
  }
};

constexpr const char* kQuantRecipes[] = {"plain-fp32", "dsv4-act",  "v3-triton", "vllm-v4-invrope",
                                         "vllm-v4-kv", "dg-ceil",   "tk-ceil",   "flashmla-kv-test"};

}  // namespace

// per_block_quant_fp8: static LDS (wave partials + broadcast amax) over dtypes, every recipe, the three scale layouts,
// tile edges up to the 1024 limit, shapes from one element to a large weight, and both variants; workgroup 256.
KernelExpectation block_quant_expectation(std::string_view arch) {
  namespace bq = dsv4::kernels::block_quant;
  const port::ArchProfile& prof = plan_profile(arch);
  Tally t;
  for (bq::InputType dt : {bq::InputType::bf16, bq::InputType::f16, bq::InputType::f32})
    for (const char* recipe : kQuantRecipes)
      for (bq::ScaleLayout l : {bq::ScaleLayout::row_major, bq::ScaleLayout::mn_major, bq::ScaleLayout::packed_ue8m0})
        for (std::int64_t gs : {32, 64, 128, 1024})
          for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {129, 300}, {7168, 4096}})
            for (auto v : {bq::BlockQuantVariant::fixed, bq::BlockQuantVariant::wave64_lds_reduction}) {
              bq::BlockQuantShape s;
              s.n = n;
              s.k = k;
              s.dtype = dt;
              bq::BlockQuantOptions o;
              o.recipe = recipe;
              o.layout = l;
              o.group_size = gs;
              o.variant = v;
              const bq::BlockQuantPlan p = bq::make_block_quant_plan(s, prof, o);
              if (p.ok) t.add(0, p.lds_bytes, p.block);
            }
  return t.finish("per_block_quant_fp8", prof);
}

// inv_rope_fp8_quant: the plan says no LDS; swept over token counts, head counts and dims, groups, group sizes,
// both scale layouts and pairings, and the recipes that admit them; workgroup 256.
KernelExpectation inv_rope_expectation(std::string_view arch) {
  namespace ir = dsv4::kernels::inv_rope;
  const port::ArchProfile& prof = plan_profile(arch);
  Tally t;
  for (std::int64_t tokens : {0, 1, 33, 4096})
    for (std::int64_t h : {1, 8, 64, 128})
      for (std::int64_t hd : {128, 512})
        for (std::int64_t g : {1, 8})
          for (std::int64_t gs : {64, 128})
            for (ir::ScaleLayout l : {ir::ScaleLayout::mn_major, ir::ScaleLayout::packed_ue8m0})
              for (ir::Pairing pr : {ir::Pairing::interleaved, ir::Pairing::neox})
                for (const char* recipe : {"vllm-v4-invrope", "plain-fp32", "dsv4-act"}) {
                  ir::InvRopeShape s;
                  s.t = tokens;
                  s.h = h;
                  s.head_dim = hd;
                  s.max_pos = 4096;
                  ir::InvRopeOptions o;
                  o.recipe = recipe;
                  o.layout = l;
                  o.group_size = gs;
                  o.n_groups = g;
                  o.pairing = pr;
                  const ir::InvRopePlan p = ir::make_inv_rope_plan(s, prof, o);
                  if (p.ok) t.add(0, p.lds_bytes, p.block);
                }
  return t.finish("inv_rope_fp8_quant", prof);
}

// dequant_fp8: the plan says no LDS; swept over the scale types, granularities, layouts, group sizes up to the
// limit, both output types and shapes from one element to a large matrix; workgroup 256.
KernelExpectation dequant_expectation(std::string_view arch) {
  namespace dq = dsv4::kernels::dequant;
  const port::ArchProfile& prof = plan_profile(arch);
  Tally t;
  for (dq::ScaleType st : {dq::ScaleType::f32, dq::ScaleType::e8m0, dq::ScaleType::packed_ue8m0})
    for (dq::Granularity gr : {dq::Granularity::token_group, dq::Granularity::block})
      for (dq::ScaleLayout l : {dq::ScaleLayout::row_major, dq::ScaleLayout::mn_major})
        for (std::int64_t gs : {32, 128, 4096})
          for (dq::OutType out : {dq::OutType::bf16, dq::OutType::f32})
            for (auto [m, k] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 300}, {4096, 7168}}) {
              dq::DequantShape s;
              s.m = m;
              s.k = k;
              dq::DequantOptions o;
              o.scale_type = st;
              o.granularity = gr;
              o.layout = l;
              o.group_size = gs;
              o.out = out;
              const dq::DequantPlan p = dq::make_dequant_plan(s, prof, o);
              if (p.ok) t.add(0, p.lds_bytes, p.block);
            }
  return t.finish("dequant_fp8", prof);
}

// kv_cache_write: the plan says no LDS; swept over both cache layouts, the recipes, kv and slot types, both fp8
// flavours, token counts and cache geometries; workgroup 256.
KernelExpectation kv_write_expectation(std::string_view arch) {
  namespace kw = dsv4::kernels::kvw;
  const port::ArchProfile& prof = plan_profile(arch);
  Tally t;
  for (kw::Layout l : {kw::Layout::v32, kw::Layout::model1})
    for (kw::Recipe r : {kw::Recipe::flashmla_kv_test, kw::Recipe::vllm_v4_kv, kw::Recipe::plain_fp32})
      for (kw::KvType kv : {kw::KvType::bf16, kw::KvType::f32})
        for (kw::SlotType sl : {kw::SlotType::i64, kw::SlotType::i32})
          for (kw::Fp8 f : {kw::Fp8::e4m3fn, kw::Fp8::e4m3fnuz})
            for (std::int64_t tokens : {0, 1, 7, 4096})
              for (auto [blocks, bs] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {64, 64}, {4096, 16}}) {
                kw::KvWriteShape s;
                s.layout = l;
                s.n_tokens = tokens;
                s.num_blocks = blocks;
                s.block_size = bs;
                s.kv = kv;
                s.slot = sl;
                kw::KvWriteOptions o;
                o.recipe = r;
                o.fp8 = f;
                const kw::KvWritePlan p = kw::make_kv_write_plan(s, prof, o);
                if (p.ok) t.add(0, p.lds_bytes, p.block);
              }
  return t.finish("kv_cache_write", prof);
}

// topk: static LDS (histogram + scan + state) over row counts, column counts across the 256/1024-thread rule
// boundary up to the 2^24 limit, top-k sizes up to 2048, both index bases and every forced block size;
// workgroup: the largest block any plan launches (1024).
KernelExpectation topk_expectation(std::string_view arch) {
  namespace tk = dsv4::kernels::topk;
  const port::ArchProfile& prof = plan_profile(arch);
  const std::int64_t col_counts[] = {1, 4096, 4097, 131072, tk::kMaxCols};
  Tally t;
  for (std::int64_t rows : {1, 64, 4096})
    for (std::int64_t cols : col_counts)
      for (std::int64_t k : {1, 512, 2048})
        for (tk::IndexBase b : {tk::IndexBase::absolute, tk::IndexBase::row_relative})
          for (int threads : {0, 64, 128, 256, 512, 1024}) {
            tk::TopkShape s;
            s.rows = rows;
            s.cols = cols;
            s.topk = k;
            s.index_base = b;
            tk::TopkOptions o;
            o.block_threads = threads;
            const tk::TopkPlan p = tk::make_topk_plan(s, prof, o);
            if (p.ok) t.add(0, p.lds_bytes, p.block);
          }
  return t.finish("topk", prof);
}

// fp8_gemm_blockscaled and fp8_einsum (one kernel): dynamic LDS = the staged K-step of x and w, over M across the
// three tile choices, N, K, batch, both fp8 flavours (the profile's is admitted), every scale-kind pair, both weight
// row blocks and the output / accumulator combinations; then the einsum plans over B, H, R, D and both recipes.
// Static LDS 0 (DSV4_LDS_DYNAMIC only); workgroup 256.
KernelExpectation bsgemm_expectation(std::string_view arch) {
  namespace bs = dsv4::kernels::bsgemm;
  namespace es = dsv4::kernels::einsum;
  const port::ArchProfile& prof = plan_profile(arch);
  const bs::ScaleKind kinds[] = {bs::ScaleKind::f32, bs::ScaleKind::ue8m0, bs::ScaleKind::packed_ue8m0};
  Tally t;
  for (std::int64_t m : {1, 16, 17, 32, 33, 64, 4096})
    for (std::int64_t n : {1, 128, 7168})
      for (std::int64_t k : {1, 128, 300, 7168})
        for (std::int64_t batch : {1, 128})
          for (bs::Fp8 f : {bs::Fp8::e4m3fn, bs::Fp8::e4m3fnuz})
            for (bs::ScaleKind xs : kinds)
              for (bs::ScaleKind ws : kinds)
                for (std::int64_t rb : {1, 128})
                  for (int outc : {0, 1, 2}) {  // bf16; fp32; fp32 with accumulator c
                    bs::BsGemmShape s;
                    s.batch = batch;
                    s.m = m;
                    s.n = n;
                    s.k = k;
                    s.fp8 = f;
                    s.x_scale = xs;
                    s.w_scale = ws;
                    s.w_row_block = rb;
                    s.out = outc == 0 ? bs::OutType::bf16 : bs::OutType::f32;
                    s.has_c = outc == 2;
                    const bs::BsGemmPlan p = bs::make_plan(s, prof);
                    if (p.ok) t.add(p.lds_bytes, 0, p.block);
                  }
  for (std::int64_t b : {1, 16, 33, 4096})
    for (std::int64_t h : {1, 16, 128})
      for (std::int64_t r : {128, 512})
        for (std::int64_t d : {128, 512})
          for (const char* recipe : {"1,128,128", "1,1,128"})
            for (bs::Fp8 f : {bs::Fp8::e4m3fn, bs::Fp8::e4m3fnuz})
              for (bool c : {false, true}) {
                es::EinsumShape s;
                s.recipe = recipe;
                s.b = b;
                s.h = h;
                s.r = r;
                s.d = d;
                s.fp8 = f;
                s.has_c = c;
                const es::EinsumPlan p = es::make_einsum_plan(s, prof);
                if (p.ok) t.add(p.gemm.lds_bytes, 0, p.gemm.block);
              }
  return t.finish("fp8_gemm_blockscaled + fp8_einsum", prof);
}

}  // namespace dsv4::amd::plans
