// The plan sweep of the block-scaled fp8 GEMM kernel as fp8_gemm_blockscaled launches it (fp8_einsum offers
// its own sweep of the same kernel): dynamic LDS = the staged K-step of x and w, over M across the three tile
// choices, N, K, batch, both fp8 flavours (the profile's is admitted), every scale-kind pair, both weight row blocks
// and the output / accumulator combinations. Static LDS 0 (DSV4_LDS_DYNAMIC only).
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::bsgemm {

PlanSweep bs_gemm_plan_sweep() {
  return {"dsv4::kernels::bsgemm::bs_gemm_kernel", [](const port::ArchProfile& prof) {
    const ScaleKind kinds[] = {ScaleKind::f32, ScaleKind::ue8m0, ScaleKind::packed_ue8m0};
    PlanTally t;
    for (std::int64_t m : {1, 16, 17, 32, 33, 64, 4096})
      for (std::int64_t n : {1, 128, 7168})
        for (std::int64_t k : {1, 128, 300, 7168})
          for (std::int64_t batch : {1, 128})
            for (Fp8 f : {Fp8::e4m3fn, Fp8::e4m3fnuz})
              for (ScaleKind xs : kinds)
                for (ScaleKind ws : kinds)
                  for (std::int64_t rb : {1, 128})
                    for (int outc : {0, 1, 2}) {  // bf16; fp32; fp32 with accumulator c
                      BsGemmShape s;
                      s.batch = batch;
                      s.m = m;
                      s.n = n;
                      s.k = k;
                      s.fp8 = f;
                      s.x_scale = xs;
                      s.w_scale = ws;
                      s.w_row_block = rb;
                      s.out = outc == 0 ? OutType::bf16 : OutType::f32;
                      s.has_c = outc == 2;
                      const BsGemmPlan p = make_plan(s, prof);
                      if (p.ok) t.add(p.lds_bytes, 0, p.block);
                    }
    return t.finish("fp8_gemm_blockscaled", prof);
  }};
}

}  // namespace dsv4::kernels::bsgemm
