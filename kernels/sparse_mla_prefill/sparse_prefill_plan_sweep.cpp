// The plan sweep of the sparse_mla_prefill kernel: the dynamic LDS (q stage + kv tile + scores + row indices +
// stats) over both d_qk, head counts and top-k sizes, with the plan's own tile choice and every forced tile.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/sparse_mla_prefill/sparse_prefill_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::sparse_prefill {

PlanSweep sparse_prefill_plan_sweep() {
  return {"dsv4::kernels::sparse_prefill::sparse_mla_prefill_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (std::int64_t d_qk : {512, 576})
      for (std::int64_t h : {1, 8, 16, 64, 128})
        for (std::int64_t topk : {16, 100, 512, 2048})
          for (int tile : {0, 16, 32, 64, 128}) {
            PrefillShape s;
            s.s_q = 64;
            s.h_q = h;
            s.d_qk = d_qk;
            s.d_v = 512;
            s.s_kv = 4096;
            s.topk = topk;
            PrefillOptions o;
            o.force_tile_k = tile;
            const PrefillPlan p = make_plan(s, prof, o);
            if (p.ok) t.add(p.lds_bytes, 0, p.block);
          }
    return t.finish("sparse_mla_prefill", prof);
  }};
}

}  // namespace dsv4::kernels::sparse_prefill
