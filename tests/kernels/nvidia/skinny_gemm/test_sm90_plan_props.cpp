// CPU-only properties of the sm_90 skinny plan (kernels/nvidia/skinny_gemm/sm90_plan.hpp) over the whole admitted
// shape space, with every kernel and layout option the sm_90 plan takes: LDS phases fit, the workspace covers what
// the kernel touches (none for a cluster reduction), the kernel's shard count is the predicate's, each kernel's
// structural rules (warpgroups, rings, slices, the producer-warp kernel's tiles and rules) hold; the CHUNKK rule's
// cap; and its refusals name the limit. The portable plan's own are tests/kernels/skinny_gemm/test_skinny_plan.cpp.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"
#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"
#include "tests/kernels/skinny_gemm/skinny_plan_invariants.hpp"
#include "tests/kernels/skinny_gemm/skinny_plan_test_util.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;

using namespace dsv4::test::skinny_plan;

RC_GTEST_PROP(Sm90PlanProps, AdmittedShapesFitLdsAndWorkspace, ()) {
  const auto s = *gen_shape();
  const auto& arch = port::kSm90;
  const int force = *rc::gen::element(0, 1, 2);
  sk::Sm90Options opt{{sk::SkinnyVariant::fixed, force}};
  opt.force_kernel = *rc::gen::element(sk::TensorCoreKernel::plan_choice, sk::TensorCoreKernel::mma_m16n8k16,
                                        sk::TensorCoreKernel::wgmma, sk::TensorCoreKernel::producer_warp);  // the plan's choice, m16n8k16, wgmma, producer warp
  opt.force_resident = *rc::gen::element(0, 1);   // one warpgroup workgroup per SM is always possible
  if (opt.force_kernel == sk::TensorCoreKernel::wgmma)  // any power of two from 8 to the padded N (0: the model's choice)
    opt.force_slice_rows = *rc::gen::element(0, 8, 16, 32, 64, 128) % (2 * sk::wgmma_unsliced_rows(s.n));
  // Shards combined by the model's choice, the workspace, or a cluster (warpgroup kernel, two chunks: K > 512).
  opt.force_cluster_reduce = *rc::gen::element(0, 1, 2);
  if ((s.k <= 512 || opt.force_kernel == sk::TensorCoreKernel::mma_m16n8k16) && opt.force_cluster_reduce == 2) opt.force_cluster_reduce = 0;
  if (opt.force_kernel == sk::TensorCoreKernel::producer_warp) {  // one layout per shape and tile of b: no other option forced
    opt = sk::Sm90Options{};
    opt.force_kernel = sk::TensorCoreKernel::producer_warp;
    opt.force_pw_tile_m = *rc::gen::element(0, 128);
  }
  const sk::SkinnyPlan p = sk::make_plan(s, arch, opt);
  const sk::Sm90Layout& lay = sk::sm90_layout(p);
  // A forced cluster reduction is refused, by design, when no shard count runs its clusters in one wave.
  if (!p.ok && opt.force_cluster_reduce == 2 && p.reason.find("in one wave") != std::string::npos) return;
  if (!p.ok) RC_FAIL("refused: " + p.describe());  // every shape of the skinny range with K % 8 == 0 is admitted
  check_admitted_plan(s, arch, p);
  // The model cost the plan was chosen by is the public model's value for it (what fit_skinny_model evaluates).
  if (lay.mma) RC_ASSERT(sk::skinny_model_us(p, arch) == lay.mma_model_cost);
  else RC_ASSERT(sk::skinny_model_us(p, arch) == -1.0);
  const sk::SkinnyKernelArgs ka = sk::kernel_args(p);
  RC_ASSERT(lay.cluster_blocks == (lay.cluster_reduce ? p.k_rnd : 1));  // what the launch checks
  if (opt.force_cluster_reduce != 0) RC_ASSERT(lay.cluster_reduce == (opt.force_cluster_reduce == 2));
  if (lay.cluster_reduce) {
    // A cluster per output tile (its shards adjacent), within the arch's cluster size; nothing outside LDS.
    RC_ASSERT(lay.wgmma || lay.producer_warp);
    RC_ASSERT(p.k_rnd >= 2 && p.k_rnd <= std::min(arch.max_cluster_blocks, sk::kMaxClusterShards));
    RC_ASSERT(lay.cluster_blocks == p.k_rnd && ka.grid % lay.cluster_blocks == 0);
    RC_ASSERT(p.workspace_bytes == 0 && p.counter_bytes == 0 && p.partial_bytes == 0 && p.lds_readback == 0);
    if (lay.wgmma) RC_ASSERT(p.lds_kreduce == static_cast<std::size_t>(p.k_groups) * p.n_p2 * p.tile_m * 4);
  } else {
    check_workspace_split(p);
  }
  // Output-row slices exist on the warpgroup kernels only.
  if (!lay.wgmma && !lay.producer_warp) RC_ASSERT(p.n_slices == 1);
  if (opt.force_slice_rows != 0) RC_ASSERT(p.slice_rows == opt.force_slice_rows);
  if (opt.force_kernel != sk::TensorCoreKernel::plan_choice) RC_ASSERT(lay.wgmma == (opt.force_kernel == sk::TensorCoreKernel::wgmma));
  if (opt.force_kernel != sk::TensorCoreKernel::plan_choice) RC_ASSERT(lay.producer_warp == (opt.force_kernel == sk::TensorCoreKernel::producer_warp));
  if (opt.force_kernel == sk::TensorCoreKernel::plan_choice) RC_ASSERT(lay.producer_warp == sk::producer_warp_preferred(s, arch, opt));
  if (lay.producer_warp) {
    // Producer-warp kernel: one workgroup of 288 threads per 64 (or, forced or by the rule, 128) rows of b, one
    // wgmma n (8 to 128) covering N; its ring is one of pw_ring's two for its rows (several panels per copy
    // only where K % 64 == 0); ring, barriers and the epilogue's LDS fit the allocation.
    RC_ASSERT(lay.mma && !lay.wgmma && lay.cluster_reduce == (p.k_rnd > 1) && p.slice_rows == 8 * lay.mma_n_blocks);
    // All rows of a in one workgroup, the sliced rule's 32-row slices for K < kPwMinKSplit, or its 64-row slices
    // for N > 64 and kPwMinKSplit <= K <= kPwMaxKPartialGrid (no forced slicing here).
    if (p.n_slices > 1 && s.k < sk::kPwMinKSplit) RC_ASSERT(p.slice_rows == sk::kPwSliceRows && s.n > sk::kPwSliceRows);
    else if (p.n_slices > 1)
      RC_ASSERT(p.slice_rows == sk::kPwMaxRowsPartialGrid && s.n > sk::kPwMaxRowsPartialGrid &&
                s.k <= sk::kPwMaxKPartialGrid);
    else RC_ASSERT(p.slice_rows >= s.n);
    RC_ASSERT(lay.mma_n_blocks >= 1 && lay.mma_n_blocks <= 16 && (lay.mma_n_blocks & (lay.mma_n_blocks - 1)) == 0);
    if (p.n_slices == 1) RC_ASSERT(p.slice_rows < 2 * s.n || p.slice_rows == 8);  // the smallest that covers N
    RC_ASSERT(p.tile_m == sk::kPwTileM || p.tile_m == sk::kPwWideTileM);
    if (opt.force_pw_tile_m != 0) RC_ASSERT(p.tile_m == opt.force_pw_tile_m);
    // The wide tile's rule (kPwWideTileM): 64-row tiles filling 3/4 of the SMs, few rows of a, a short K; unsplit.
    const std::int64_t rows_all = sk::wgmma_unsliced_rows(s.n);
    const bool wide_rule = 4 * ((s.m + 63) / 64) >= 3 * arch.compute_units && rows_all <= sk::kPwWideMaxRows &&
                           rows_all * s.k <= sk::kPwWideMaxRowsK;
    if (opt.force_pw_tile_m == 0) RC_ASSERT((p.tile_m == sk::kPwWideTileM) == wide_rule);
    if (opt.force_pw_tile_m == 0 && wide_rule) RC_ASSERT(p.k_rnd == 1 && p.n_slices == 1);
    RC_ASSERT(p.k_groups == (p.tile_m == sk::kPwTileM ? 2 : 1));
    RC_ASSERT(p.grid == (s.m + p.tile_m - 1) / p.tile_m * p.n_slices * p.k_rnd && p.block == sk::kPwThreads);
    RC_ASSERT(lay.producer_warp && !lay.wgmma && ka.block == sk::kPwThreads);
    bool known_ring = false;
    for (bool wide : {true, false}) {
      const sk::PwRing r = sk::pw_ring(p.slice_rows, wide, p.tile_m);
      known_ring |= r.stages == lay.mma_stages && r.panels == lay.mma_panels;
    }
    RC_ASSERT(known_ring);
    if (s.k % sk::kWgmmaPanelK != 0) RC_ASSERT(lay.mma_panels == 1);
    RC_ASSERT(p.k_shard == static_cast<std::int64_t>(p.chunks_per_shard) * lay.mma_panels * sk::kWgmmaPanelK);
    RC_ASSERT(p.k_rnd * p.k_shard - s.k < p.k_shard);  // no empty shard; the last one may be shorter
    if (opt.force_kernel == sk::TensorCoreKernel::plan_choice && p.k_rnd > 1 && 2 * ((s.m + 63) / 64) > arch.compute_units)
      RC_FAIL("a split on a grid of tiles that leaves fewer than half the SMs idle: " + p.describe());
    const std::size_t ring = static_cast<std::size_t>(lay.mma_stages) * lay.mma_panels * (p.tile_m + p.slice_rows) * 128;
    RC_ASSERT(p.lds_main >= ring + sk::kWgmmaAlignSlack + lay.mma_stages * 16);
    RC_ASSERT(ring <= static_cast<std::size_t>(sk::kPwRingBytes));
    // The epilogue: the k-group exchange (64 rows of b only) and the transposed output tile.
    const int exchange = p.tile_m == sk::kPwTileM ? 64 * sk::pw_red_stride(p.slice_rows) : 0;
    RC_ASSERT(p.lds_kreduce >= (exchange + p.slice_rows * sk::pw_tile_stride(p.tile_m)) * 4 + sk::kWgmmaAlignSlack);
    RC_ASSERT(p.lds_kreduce <= ring);  // the epilogue reuses the ring, never the barriers after it
  } else if (lay.wgmma) {
    // Warpgroup path: 2 warpgroups tile the output along M and split the panels; 64-row tiles of b; the padded
    // rows of a are a power-of-two multiple of 8 that covers N; panels of 64 K divide the chunk, at most 4 (fixed
    // swizzled copy columns); every panel is whole 1 KiB swizzle atoms; the ring fits the one-block-per-SM budget.
    RC_ASSERT(lay.mma && lay.mma_warps_n == 1);
    RC_ASSERT(lay.mma_warps_m * p.k_groups == 2);
    RC_ASSERT(lay.mma_m_tiles == 4 || lay.mma_m_tiles == 8);
    RC_ASSERT(p.tile_m == 16 * lay.mma_m_tiles * lay.mma_warps_m);
    RC_ASSERT(8 * lay.mma_n_blocks == p.slice_rows);  // each workgroup multiplies its slice's rows of a
    RC_ASSERT(p.n_p2 == std::max(16, p.slice_rows));
    RC_ASSERT(p.slice_rows <= sk::wgmma_unsliced_rows(s.n));
    RC_ASSERT((lay.mma_n_blocks & (lay.mma_n_blocks - 1)) == 0);
    RC_ASSERT(lay.mma_panels >= 1 && lay.mma_panels <= sk::kWgmmaMaxPanels && lay.mma_panels % p.k_groups == 0);
    {  // the kernel has a main loop for 1, 2 and 4 panels per k-group only (any other count would run as 4)
      const int per_group = lay.mma_panels / p.k_groups;
      RC_ASSERT(per_group == 1 || per_group == 2 || per_group == 4);
    }
    RC_ASSERT(p.k_chunk % (lay.mma_panels * sk::kWgmmaPanelK) == 0);  // bulk copies never cross a shard's end
    RC_ASSERT(p.tile_m <= 256 && 8 * lay.mma_n_blocks <= 256);
    RC_ASSERT(lay.mma_stages >= sk::kWgmmaMinStages && lay.mma_stages <= sk::kWgmmaStages);
    {
      // The slot count keeps the most panels in flight ((slots - 1) x panels per slot, the ring and the k-group
      // reduction within the budget); a tie keeps 4 slots. Recomputed here from the ring's layout.
      const std::size_t rows = static_cast<std::size_t>(p.tile_m + 8 * lay.mma_n_blocks);
      const std::size_t budget = sk::mma_lds_budget(lay.mma_resident);
      const std::size_t kreduce = p.k_groups > 1 ? static_cast<std::size_t>(p.k_groups) * p.n_p2 * p.tile_m * 4 : 0;
      auto fits = [&](int st, int pn) {
        const std::size_t ring = st * pn * rows * sk::kWgmmaPanelK * 2 + sk::kWgmmaAlignSlack + st * 8;
        return std::max(ring, kreduce) <= budget;
      };
      RC_ASSERT(fits(lay.mma_stages, lay.mma_panels));
      RC_ASSERT(lay.mma_panels == sk::kWgmmaMaxPanels || !fits(lay.mma_stages, 2 * lay.mma_panels));
      for (int st = sk::kWgmmaMinStages; st <= sk::kWgmmaStages; ++st)
        for (int pn = p.k_groups; pn <= sk::kWgmmaMaxPanels; pn *= 2)
          if (st != lay.mma_stages && fits(st, pn)) {
            if (st > lay.mma_stages) RC_ASSERT((st - 1) * pn < (lay.mma_stages - 1) * lay.mma_panels);
            else RC_ASSERT((st - 1) * pn <= (lay.mma_stages - 1) * lay.mma_panels);
          }
    }
    RC_ASSERT((p.tile_m + 8 * lay.mma_n_blocks) * sk::kWgmmaPanelK * 2 % 1024 == 0);
    RC_ASSERT(lay.mma_resident >= 1 && lay.mma_resident <= sk::wgmma_blocks_per_sm(lay.mma_n_blocks, lay.mma_m_tiles / 4));
    RC_ASSERT(std::max(p.lds_main, p.lds_kreduce) <= sk::mma_lds_budget(lay.mma_resident));
    if (opt.force_resident != 0) RC_ASSERT(lay.mma_resident == opt.force_resident);
  } else if (lay.mma) {
    // Tensor-core path: 8 warps tile the output and split the panels; each stage's K divides the chunk; the ring
    // and reduction fit the two-blocks-per-SM budget; per-warp branches stay uniform over 64-lane warp pairs.
    RC_ASSERT(lay.mma_warps_m * lay.mma_warps_n * p.k_groups == 8);
    RC_ASSERT(p.tile_m == 16 * lay.mma_m_tiles * lay.mma_warps_m);
    RC_ASSERT(8 * lay.mma_n_blocks * lay.mma_warps_n >= s.n);
    RC_ASSERT(8 * lay.mma_n_blocks * lay.mma_warps_n <= p.n_p2);
    RC_ASSERT(lay.mma_panels % p.k_groups == 0);
    RC_ASSERT(p.k_chunk % (lay.mma_panels * sk::kMmaPanelK) == 0);
    RC_ASSERT(std::max(p.lds_main, p.lds_kreduce) <=
              sk::mma_lds_budget(sk::mma_blocks_per_sm(lay.mma_n_blocks, lay.mma_m_tiles)));
    if (lay.mma_warps_n > 1) RC_ASSERT(lay.mma_warps_m >= 2);
  }
}

RC_GTEST_PROP(Sm90PlanProps, ChunkkRuleIsCappedAndNeverFor16RowClass, ()) {
  const auto s = *gen_shape();
  check_chunkk_rule(s, port::kSm90);
}

TEST(Sm90PlanProps, RefusalsNameTheLimit) {
  sk::SkinnyShape s = shape_nmk(4, 64, 12);
  auto p = sk::make_plan(s, port::kSm90);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("K=12"), std::string::npos) << p.reason;
  // A workspace need above the limit is refused, with both numbers.
  s.k = 512;
  s.n = 128;
  s.m = 200000;
  p = sk::make_plan(s, port::kSm90);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("workspace"), std::string::npos) << p.reason;
}
