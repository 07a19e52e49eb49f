// The plan sweeps of the sparse_mla_decode kernels: the split kernel's dynamic LDS (q + key tile + p + stats +
// indices) over both layouts, head counts, top-k sizes and every head-group / key-tile choice; for the combine
// kernel (launched with 0 dynamic bytes) the plan's lds_combine_bytes over the same sweep. Workgroup size 0: each
// object's own (256 split, 128 combine).
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/sparse_mla_decode/smla_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::smla {

namespace {

LaunchBudget smla_sweep(const port::ArchProfile& prof, bool combine) {
  PlanTally t;
  for (Layout l : {Layout::v32, Layout::model1})
    for (std::int64_t h : {1, 4, 16, 64, 128})
      for (std::int64_t topk : {64, 2048})
        for (int hg : {0, 4, 16, 32})
          for (int kt : {0, 8, 16, 32, 64}) {
            SmlaShape s;
            s.b = 4;
            s.h_q = h;
            s.layout = l;
            s.topk = topk;
            s.cache = {64, 64, 0};
            s.extra_topk = 128;
            s.extra_cache = {16, 64, 0};
            SmlaOptions o;
            o.heads_per_group = hg;
            o.key_tile = kt;
            const SmlaPlan p = make_plan(s, prof, o);
            if (p.ok) t.add(combine ? p.lds_combine_bytes : p.lds_split_bytes, 0, 0);
          }
  return t.finish(combine ? "sparse_mla_decode combine" : "sparse_mla_decode split", prof);
}

}  // namespace

PlanSweep smla_split_plan_sweep() {
  return {"dsv4::kernels::smla::smla_split_kernel", [](const port::ArchProfile& prof) {
    return smla_sweep(prof, false);
  }};
}

PlanSweep smla_combine_plan_sweep() {
  return {"dsv4::kernels::smla::smla_combine_kernel", [](const port::ArchProfile& prof) {
    return smla_sweep(prof, true);
  }};
}

}  // namespace dsv4::kernels::smla
