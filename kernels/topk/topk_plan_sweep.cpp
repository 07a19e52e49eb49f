// The plan sweep of the topk kernel: static LDS (histogram + scan + state) over row counts, column counts across
// the 256/1024-thread rule boundary up to the 2^24 limit, top-k sizes up to 2048, both index bases and every forced
// block size; workgroup: the largest block any plan launches (1024).
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/topk/topk_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::topk {

PlanSweep topk_plan_sweep() {
  return {"dsv4::kernels::topk::topk_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    const std::int64_t col_counts[] = {1, 4096, 4097, 131072, kMaxCols};
    for (std::int64_t rows : {1, 64, 4096})
      for (std::int64_t cols : col_counts)
        for (std::int64_t k : {1, 512, 2048})
          for (IndexBase b : {IndexBase::absolute, IndexBase::row_relative})
            for (int threads : {0, 64, 128, 256, 512, 1024}) {
              TopkShape s;
              s.rows = rows;
              s.cols = cols;
              s.topk = k;
              s.index_base = b;
              TopkOptions o;
              o.block_threads = threads;
              const TopkPlan p = make_topk_plan(s, prof, o);
              if (p.ok) t.add(0, p.lds_bytes, p.block);
            }
    return t.finish("topk", prof);
  }};
}

}  // namespace dsv4::kernels::topk
