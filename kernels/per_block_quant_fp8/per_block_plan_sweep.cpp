// The plan sweep of the per_block_quant_fp8 kernel: it launches with 0 dynamic LDS, so the plan's lds_bytes
// (wave partials + broadcast amax) is its static LDS, cross-checked against the object; swept over dtypes, every
// recipe, the three scale layouts, tile edges up to the 1024 limit, shapes from one element to a large weight, and
// both variants.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/per_block_quant_fp8/per_block_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::block_quant {

PlanSweep per_block_plan_sweep() {
  return {"dsv4::kernels::block_quant::per_block_quant_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (InputType dt : {InputType::bf16, InputType::f16, InputType::f32})
      for (const char* recipe : {"plain-fp32", "dsv4-act", "v3-triton", "vllm-v4-invrope", "vllm-v4-kv", "dg-ceil",
                                 "tk-ceil", "flashmla-kv-test"})
        for (ScaleLayout l : {ScaleLayout::row_major, ScaleLayout::mn_major, ScaleLayout::packed_ue8m0})
          for (std::int64_t gs : {32, 64, 128, 1024})
            for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {129, 300}, {7168, 4096}})
              for (auto v : {BlockQuantVariant::fixed, BlockQuantVariant::wave64_lds_reduction}) {
                BlockQuantShape s;
                s.n = n;
                s.k = k;
                s.dtype = dt;
                BlockQuantOptions o;
                o.recipe = recipe;
                o.layout = l;
                o.group_size = gs;
                o.variant = v;
                const BlockQuantPlan p = make_block_quant_plan(s, prof, o);
                if (p.ok) t.add(0, p.lds_bytes, p.block);
              }
    return t.finish("per_block_quant_fp8", prof);
  }};
}

}  // namespace dsv4::kernels::block_quant
