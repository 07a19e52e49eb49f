// The plan sweeps of the indexer kernels: dynamic LDS = q as fp32 (H·D·4) + weights (H·4) over every head count
// up to 256 and D in {32, 64, 128}, for the contiguous plan (indexer_logits) and the paged plan
// (indexer_logits_paged); workgroup kKeysPerBlock.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/indexer_logits/indexer_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::indexer {

PlanSweep indexer_plan_sweep() {
  return {"dsv4::kernels::indexer::indexer_logits_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (std::int64_t h = 1; h <= 256; ++h)
      for (std::int64_t d : {32, 64, 128}) {
        IndexerShape s;
        s.s = 4;
        s.s_kv = 300;
        s.h = h;
        s.d = d;
        const IndexerPlan p = make_indexer_plan(s, prof);
        if (p.ok) t.add(p.lds_bytes, 0, p.block);
      }
    return t.finish("indexer_logits", prof);
  }};
}

PlanSweep indexer_paged_plan_sweep() {
  return {"dsv4::kernels::indexer::indexer_logits_paged_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (std::int64_t h = 1; h <= 256; ++h)
      for (std::int64_t d : {32, 64, 128}) {
        PagedShape s;
        s.b = 2;
        s.h = h;
        s.d = d;
        s.num_blocks = 8;
        s.max_blocks = 4;
        s.max_context_len = 256;
        const PagedPlan p = make_paged_plan(s, prof);
        if (p.ok) t.add(p.lds_bytes, 0, p.block);
      }
    return t.finish("indexer_logits_paged", prof);
  }};
}

}  // namespace dsv4::kernels::indexer
