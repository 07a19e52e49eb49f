// The plan sweep of the merge_attn_states kernel: the plan says no LDS; the sweep confirms it over dtypes and head
// sizes.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/merge_attn_states/merge_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::merge {

PlanSweep merge_plan_sweep() {
  return {"dsv4::kernels::merge::merge_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (ElemType dt : {ElemType::f32, ElemType::f16, ElemType::bf16})
      for (std::int64_t d : {64, 128, 512})
        for (std::int64_t tokens : {1, 7, 4096}) {
          MergeShape s;
          s.t = tokens;
          s.h = 16;
          s.d = d;
          s.dtype = dt;
          const MergePlan p = make_merge_plan(s, prof);
          if (p.ok) t.add(p.lds_bytes, 0, p.block);
        }
    return t.finish("merge_attn_states", prof);
  }};
}

}  // namespace dsv4::kernels::merge
