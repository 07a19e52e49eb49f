// The plan sweep of the dequant_fp8 kernel (no registry op: registered through add_plan_sweeps_without_op):
// the plan says no LDS; swept over the scale types, granularities, layouts, group sizes up to the limit, both output
// types and shapes from one element to a large matrix.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/dequant_fp8/dequant_plan.hpp"
#include "kernels/kernel_registry.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::dequant {

PlanSweep dequant_plan_sweep() {
  return {"dsv4::kernels::dequant::dequant_fp8_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (ScaleType st : {ScaleType::f32, ScaleType::e8m0, ScaleType::packed_ue8m0})
      for (Granularity gr : {Granularity::token_group, Granularity::block})
        for (ScaleLayout l : {ScaleLayout::row_major, ScaleLayout::mn_major})
          for (std::int64_t gs : {32, 128, 4096})
            for (OutType out : {OutType::bf16, OutType::f32})
              for (auto [m, k] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 300}, {4096, 7168}}) {
                DequantShape s;
                s.m = m;
                s.k = k;
                DequantOptions o;
                o.scale_type = st;
                o.granularity = gr;
                o.layout = l;
                o.group_size = gs;
                o.out = out;
                const DequantPlan p = make_dequant_plan(s, prof, o);
                if (p.ok) t.add(0, p.lds_bytes, p.block);
              }
    return t.finish("dequant_fp8", prof);
  }};
}

}  // namespace dsv4::kernels::dequant

namespace dsv4::kernels {

// dequant_fp8 has no registry op: only its plan sweep is registered.
void register_dequant_fp8_kernel(KernelRegistry& r) { r.add_plan_sweeps_without_op({dequant::dequant_plan_sweep()}); }

}  // namespace dsv4::kernels
