// The plan sweep of the kv_cache_write kernel: the plan says no LDS; swept over both cache layouts, the recipes,
// kv and slot types, both fp8 flavours, token counts and cache geometries.
// What the AMD budget check matches against the code object (kernels/plan_sweep.hpp).
#include <cstdint>
#include <utility>

#include "kernels/kv_cache_write/kv_write_plan.hpp"
#include "kernels/plan_sweep.hpp"

namespace dsv4::kernels::kvw {

PlanSweep kv_write_plan_sweep() {
  return {"dsv4::kernels::kvw::kv_cache_write_kernel", [](const port::ArchProfile& prof) {
    PlanTally t;
    for (Layout l : {Layout::v32, Layout::model1})
      for (Recipe r : {Recipe::flashmla_kv_test, Recipe::vllm_v4_kv, Recipe::plain_fp32})
        for (KvType kv : {KvType::bf16, KvType::f32})
          for (SlotType sl : {SlotType::i64, SlotType::i32})
            for (Fp8 f : {Fp8::e4m3fn, Fp8::e4m3fnuz})
              for (std::int64_t tokens : {0, 1, 7, 4096})
                for (auto [blocks, bs] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {64, 64}, {4096, 16}}) {
                  KvWriteShape s;
                  s.layout = l;
                  s.n_tokens = tokens;
                  s.num_blocks = blocks;
                  s.block_size = bs;
                  s.kv = kv;
                  s.slot = sl;
                  KvWriteOptions o;
                  o.recipe = r;
                  o.fp8 = f;
                  const KvWritePlan p = make_kv_write_plan(s, prof, o);
                  if (p.ok) t.add(0, p.lds_bytes, p.block);
                }
    return t.finish("kv_cache_write", prof);
  }};
}

}  // namespace dsv4::kernels::kvw
