// The plan sweep of the inv_rope_fp8_quant kernel: the plan says no LDS (0 dynamic, lds_bytes static); swept
// over token counts, head counts and dims, groups, group sizes, both scale layouts and pairings, and the recipes
// that admit them.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/inv_rope_fp8_quant/inv_rope_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::inv_rope {

PlanSweep inv_rope_plan_sweep() {
  return {"dsv4::kernels::inv_rope::inv_rope_fp8_quant_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (std::int64_t tokens : {0, 1, 33, 4096})
      for (std::int64_t h : {1, 8, 64, 128})
        for (std::int64_t hd : {128, 512})
          for (std::int64_t g : {1, 8})
            for (std::int64_t gs : {64, 128})
              for (ScaleLayout l : {ScaleLayout::mn_major, ScaleLayout::packed_ue8m0})
                for (Pairing pr : {Pairing::interleaved, Pairing::neox})
                  for (const char* recipe : {"vllm-v4-invrope", "plain-fp32", "dsv4-act"}) {
                    InvRopeShape s;
                    s.t = tokens;
                    s.h = h;
                    s.head_dim = hd;
                    s.max_pos = 4096;
                    InvRopeOptions o;
                    o.recipe = recipe;
                    o.layout = l;
                    o.group_size = gs;
                    o.n_groups = g;
                    o.pairing = pr;
                    const InvRopePlan p = make_inv_rope_plan(s, prof, o);
                    if (p.ok) t.add(0, p.lds_bytes, p.block);
                  }
    return t.finish("inv_rope_fp8_quant", prof);
  }};
}

}  // namespace dsv4::kernels::inv_rope
