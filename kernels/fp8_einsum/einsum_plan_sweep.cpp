// The plan sweep of the block-scaled GEMM kernel as fp8_einsum launches it (one batched GEMM per einsum): the
// GEMM plans of every einsum over B, H, R, D, both recipes, both fp8 flavours and with or without c.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/fp8_einsum/einsum_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::einsum {

PlanSweep einsum_plan_sweep() {
  return {"dsv4::kernels::bsgemm::bs_gemm_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (std::int64_t b : {1, 16, 33, 4096})
      for (std::int64_t h : {1, 16, 128})
        for (std::int64_t r : {128, 512})
          for (std::int64_t d : {128, 512})
            for (const char* recipe : {"1,128,128", "1,1,128"})
              for (bsgemm::Fp8 f : {bsgemm::Fp8::e4m3fn, bsgemm::Fp8::e4m3fnuz})
                for (bool c : {false, true}) {
                  EinsumShape s;
                  s.recipe = recipe;
                  s.b = b;
                  s.h = h;
                  s.r = r;
                  s.d = d;
                  s.fp8 = f;
                  s.has_c = c;
                  const EinsumPlan p = make_einsum_plan(s, prof);
                  if (p.ok) t.add(p.gemm.lds_bytes, 0, p.gemm.block);
                }
    return t.finish("fp8_einsum", prof);
  }};
}

}  // namespace dsv4::kernels::einsum
