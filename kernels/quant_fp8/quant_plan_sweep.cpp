// The plan sweep of the per_token_group_quant_fp8 kernel: the plan says no LDS; the sweep covers dtypes, group sizes
// and scale layouts.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/quant_fp8/quant_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::quant {

PlanSweep quant_plan_sweep() {
  return {"dsv4::kernels::quant::quant_fp8_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (InputType dt : {InputType::bf16, InputType::f16, InputType::f32})
      for (std::int64_t g : {32, 128, 4096})
        for (ScaleLayout l : {ScaleLayout::row_major, ScaleLayout::mn_major})
          for (std::int64_t m : {1, 33, 8192}) {
            QuantShape s;
            s.m = m;
            s.k = 4096;
            s.dtype = dt;
            QuantOptions o;
            o.group_size = g;
            o.layout = l;
            const QuantPlan p = make_quant_plan(s, prof, o);
            if (p.ok) t.add(p.lds_bytes, 0, p.block);
          }
    return t.finish("per_token_group_quant_fp8", prof);
  }};
}

}  // namespace dsv4::kernels::quant
