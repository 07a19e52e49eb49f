// CPU-only tests of the skinny GEMM host plan: RapidCheck properties over the whole admitted shape space for each
// arch profile (LDS phases fit, workspace covers what the kernel touches, the kernel's shard count is the
// predicate's), hand-derived plans at the known-bug shapes, and refusals that name the limit.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;

namespace {

const port::ArchProfile& arch_of(int i) {
  static const port::ArchProfile* all[] = {&port::kGfx942, &port::kGfx950, &port::kSm90};
  return *all[i];
}

sk::SkinnyShape shape_nmk(std::int64_t n, std::int64_t m, std::int64_t k) {
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  s.k = k;
  return s;
}

rc::Gen<sk::SkinnyShape> gen_shape() {
  return rc::gen::apply(
      [](int n, int m, int k8, int pad8, bool f16, int bias) {
        sk::SkinnyShape s;
        s.n = n;
        s.m = m;
        s.k = static_cast<std::int64_t>(k8) * 8;
        s.lda = s.k + static_cast<std::int64_t>(pad8) * 8;
        s.dtype = f16 ? sk::ElemType::f16 : sk::ElemType::bf16;
        s.bias = static_cast<sk::BiasShape>(bias);
        return s;
      },
      rc::gen::inRange(1, 129), rc::gen::inRange(1, 20000), rc::gen::inRange(1, 4097), rc::gen::inRange(0, 9),
      rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 4));
}

}  // namespace

RC_GTEST_PROP(SkinnyPlanProps, AdmittedShapesFitLdsAndWorkspace, ()) {
  const auto s = *gen_shape();
  const auto& arch = arch_of(*rc::gen::inRange(0, 3));
  const int force = *rc::gen::element(0, 1, 2);
  sk::SkinnyOptions opt{sk::SkinnyVariant::fixed, force};
  if (arch.arch == port::Arch::sm_90) {
    opt.force_kernel = *rc::gen::element(sk::TensorCoreKernel::plan_choice, sk::TensorCoreKernel::mma_m16n8k16,
                                          sk::TensorCoreKernel::wgmma, sk::TensorCoreKernel::producer_warp);  // the plan's choice, m16n8k16, wgmma, producer warp
    opt.force_resident = *rc::gen::element(0, 1);   // one warpgroup workgroup per SM is always possible
    if (opt.force_kernel == sk::TensorCoreKernel::wgmma)  // any power of two from 8 to the padded N (0: the model's choice)
      opt.force_slice_rows = *rc::gen::element(0, 8, 16, 32, 64, 128) % (2 * sk::wgmma_unsliced_rows(s.n));
    // Shards combined by the model's choice, the workspace, or a cluster (warpgroup kernel, two chunks: K > 512).
    opt.force_cluster_reduce = *rc::gen::element(0, 1, 2);
    if ((s.k <= 512 || opt.force_kernel == sk::TensorCoreKernel::mma_m16n8k16) && opt.force_cluster_reduce == 2) opt.force_cluster_reduce = 0;
  }
  if (opt.force_kernel == sk::TensorCoreKernel::producer_warp) {  // one layout per shape and tile of b: no other option forced
    opt = sk::SkinnyOptions{};
    opt.force_kernel = sk::TensorCoreKernel::producer_warp;
    opt.force_pw_tile_m = *rc::gen::element(0, 128);
  }
  const sk::SkinnyPlan p = sk::make_plan(s, arch, opt);
  // A forced cluster reduction is refused, by design, when no shard count runs its clusters in one wave.
  if (!p.ok && opt.force_cluster_reduce == 2 && p.reason.find("in one wave") != std::string::npos) return;
  if (!p.ok) RC_FAIL("refused: " + p.describe());  // every shape of the skinny range with K % 8 == 0 is admitted
  RC_ASSERT(p.lds_alloc_bytes <= arch.lds_bytes_per_block);
  for (const auto& ph : p.lds_phases()) RC_ASSERT(ph.bytes <= p.lds_alloc_bytes);
  // The model cost the plan was chosen by is the public model's value for it (what fit_skinny_model evaluates).
  if (p.mma) RC_ASSERT(sk::skinny_model_us(p, arch) == p.mma_model_cost);
  else RC_ASSERT(sk::skinny_model_us(p, arch) == -1.0);
  // Every shard is non-empty and together they cover K.
  RC_ASSERT(p.k_rnd * p.k_shard >= s.k);
  RC_ASSERT((p.k_rnd - 1) * p.k_shard < s.k);
  RC_ASSERT(p.workspace_bytes == p.workspace_need_bytes);
  RC_ASSERT(sk::workspace_size(s, arch) == sk::make_plan(s, arch).workspace_bytes);
  // The kernel's shard count, chunking and offsets are the predicate's.
  const sk::SkinnyKernelArgs ka = sk::kernel_args(p);
  RC_ASSERT(ka.k_rnd == p.k_rnd);
  RC_ASSERT(ka.k_shard == static_cast<std::int64_t>(ka.chunks_per_shard) * ka.k_chunk);
  RC_ASSERT(ka.grid == ka.tiles_m * ka.n_slices * ka.k_rnd);
  RC_ASSERT(ka.cluster_blocks == p.cluster_blocks);
  if (opt.force_cluster_reduce != 0) RC_ASSERT(p.cluster_reduce == (opt.force_cluster_reduce == 2));
  if (p.cluster_reduce) {
    // A cluster per output tile (its shards adjacent), within the arch's cluster size; nothing outside LDS.
    RC_ASSERT(p.wgmma || p.producer_warp);
    RC_ASSERT(p.k_rnd >= 2 && p.k_rnd <= std::min(arch.max_cluster_blocks, sk::kMaxClusterShards));
    RC_ASSERT(p.cluster_blocks == p.k_rnd && ka.grid % p.cluster_blocks == 0);
    RC_ASSERT(p.workspace_bytes == 0 && p.counter_bytes == 0 && p.partial_bytes == 0 && p.lds_readback == 0);
    if (p.wgmma) RC_ASSERT(p.lds_kreduce == static_cast<std::size_t>(p.k_groups) * p.n_p2 * p.tile_m * 4);
  } else {
    RC_ASSERT(p.cluster_blocks == 1);
    RC_ASSERT(p.readback_batch_shards >= 1);
    RC_ASSERT(p.readback_batches * p.readback_batch_shards >= p.k_rnd);
    // Workspace: the kernel's slabs (M_p · N_p2 · k_rnd fp32, known-bugs #2 test) plus counters fit.
    const std::size_t slabs = static_cast<std::size_t>(p.m_padded) * p.n_slices * p.n_p2 * p.k_rnd * 4;
    RC_ASSERT(p.workspace_bytes >= slabs + p.counter_bytes);
    RC_ASSERT(ka.partial_offset + ka.partial_bytes <= p.workspace_bytes);
    RC_ASSERT(ka.counter_offset + p.counter_bytes <= ka.partial_offset);
    RC_ASSERT(ka.partial_offset == sk::kCounterRegionBytes);  // same layout for every shape (pool slots are shared)
    RC_ASSERT(p.counter_bytes == static_cast<std::size_t>(p.tiles_m * p.n_slices) * 4);  // one counter per tile
  }
  // Output-row slices cover N exactly once (no empty slice), and exist on the warpgroup path only.
  RC_ASSERT(ka.n_slices == p.n_slices && ka.slice_rows == p.slice_rows);
  RC_ASSERT(static_cast<std::int64_t>(p.n_slices) * p.slice_rows >= s.n);
  RC_ASSERT(static_cast<std::int64_t>(p.n_slices - 1) * p.slice_rows < s.n);
  if (!p.wgmma && !p.producer_warp) RC_ASSERT(p.n_slices == 1);
  if (opt.force_slice_rows != 0) RC_ASSERT(p.slice_rows == opt.force_slice_rows);
  RC_ASSERT(static_cast<std::size_t>(ka.readback_batch_shards) * ka.readback_pass_outputs * 4 <= ka.lds_bytes);
  // Kernel structural invariants: whole micro-tiles and k-groups; readback passes of whole N-tiles with at most
  // 16 owned outputs per thread; epilogue groups of kEpiVec outputs never cross a row (16-byte aligned in LDS).
  RC_ASSERT(p.n_p2 * p.tile_m % (256 * 1) == 0);
  RC_ASSERT(p.readback_pass_outputs % 256 == 0);
  RC_ASSERT(p.readback_pass_outputs / 256 <= 16);
  RC_ASSERT(p.tile_m % sk::kEpiVec == 0);
  const std::int64_t stage = p.rows_per_n_tile * p.tile_m;  // the epilogues index by shifts: powers of two
  RC_ASSERT((p.tile_m & (p.tile_m - 1)) == 0);
  RC_ASSERT((stage & (stage - 1)) == 0);
  RC_ASSERT((std::int64_t{1} << ka.tm_shift) == p.tile_m);  // the shifts the kernel indexes by
  RC_ASSERT((std::int64_t{1} << ka.readback_stage_shift) == stage);
  RC_ASSERT(p.n_p2 * p.tile_m % p.readback_pass_outputs == 0);
  RC_ASSERT(p.readback_pass_outputs % (p.rows_per_n_tile * p.tile_m) == 0);
  RC_ASSERT((p.k_chunk / 8) % p.k_groups == 0);
  RC_ASSERT(p.n_p2 % p.rows_per_n_tile == 0);
  if (opt.force_kernel != sk::TensorCoreKernel::plan_choice) RC_ASSERT(p.wgmma == (opt.force_kernel == sk::TensorCoreKernel::wgmma));
  if (opt.force_kernel != sk::TensorCoreKernel::plan_choice) RC_ASSERT(p.producer_warp == (opt.force_kernel == sk::TensorCoreKernel::producer_warp));
  if (opt.force_kernel == sk::TensorCoreKernel::plan_choice) RC_ASSERT(p.producer_warp == sk::producer_warp_preferred(s, arch, opt));
  if (p.producer_warp) {
    // Producer-warp kernel: one workgroup of 288 threads per 64 (or, forced or by the rule, 128) rows of b, one
    // wgmma n (8 to 128) covering N; its ring is one of pw_ring's two for its rows (several panels per copy
    // only where K % 64 == 0); ring, barriers and the epilogue's LDS fit the allocation.
    RC_ASSERT(p.mma && !p.wgmma && p.cluster_reduce == (p.k_rnd > 1) && p.slice_rows == 8 * p.mma_n_blocks);
    // All rows of a in one workgroup, the sliced rule's 32-row slices for K < kPwMinKSplit, or its 64-row slices
    // for N > 64 and kPwMinKSplit <= K <= kPwMaxKPartialGrid (no forced slicing here).
    if (p.n_slices > 1 && s.k < sk::kPwMinKSplit) RC_ASSERT(p.slice_rows == sk::kPwSliceRows && s.n > sk::kPwSliceRows);
    else if (p.n_slices > 1)
      RC_ASSERT(p.slice_rows == sk::kPwMaxRowsPartialGrid && s.n > sk::kPwMaxRowsPartialGrid &&
                s.k <= sk::kPwMaxKPartialGrid);
    else RC_ASSERT(p.slice_rows >= s.n);
    RC_ASSERT(p.mma_n_blocks >= 1 && p.mma_n_blocks <= 16 && (p.mma_n_blocks & (p.mma_n_blocks - 1)) == 0);
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
    RC_ASSERT(ka.producer_warp && !ka.wgmma && ka.block == sk::kPwThreads);
    bool known_ring = false;
    for (bool wide : {true, false}) {
      const sk::PwRing r = sk::pw_ring(p.slice_rows, wide, p.tile_m);
      known_ring |= r.stages == p.mma_stages && r.panels == p.mma_panels;
    }
    RC_ASSERT(known_ring);
    if (s.k % sk::kWgmmaPanelK != 0) RC_ASSERT(p.mma_panels == 1);
    RC_ASSERT(p.k_shard == static_cast<std::int64_t>(p.chunks_per_shard) * p.mma_panels * sk::kWgmmaPanelK);
    RC_ASSERT(p.k_rnd * p.k_shard - s.k < p.k_shard);  // no empty shard; the last one may be shorter
    if (opt.force_kernel == sk::TensorCoreKernel::plan_choice && p.k_rnd > 1 && 2 * ((s.m + 63) / 64) > arch.compute_units)
      RC_FAIL("a split on a grid of tiles that leaves fewer than half the SMs idle: " + p.describe());
    const std::size_t ring = static_cast<std::size_t>(p.mma_stages) * p.mma_panels * (p.tile_m + p.slice_rows) * 128;
    RC_ASSERT(p.lds_main >= ring + sk::kWgmmaAlignSlack + p.mma_stages * 16);
    RC_ASSERT(ring <= static_cast<std::size_t>(sk::kPwRingBytes));
    // The epilogue: the k-group exchange (64 rows of b only) and the transposed output tile.
    const int exchange = p.tile_m == sk::kPwTileM ? 64 * sk::pw_red_stride(p.slice_rows) : 0;
    RC_ASSERT(p.lds_kreduce >= (exchange + p.slice_rows * sk::pw_tile_stride(p.tile_m)) * 4 + sk::kWgmmaAlignSlack);
    RC_ASSERT(p.lds_kreduce <= ring);  // the epilogue reuses the ring, never the barriers after it
  } else if (p.wgmma) {
    // Warpgroup path: 2 warpgroups tile the output along M and split the panels; 64-row tiles of b; the padded
    // rows of a are a power-of-two multiple of 8 that covers N; panels of 64 K divide the chunk, at most 4 (fixed
    // swizzled copy columns); every panel is whole 1 KiB swizzle atoms; the ring fits the one-block-per-SM budget.
    RC_ASSERT(p.mma && p.mma_warps_n == 1);
    RC_ASSERT(p.mma_warps_m * p.k_groups == 2);
    RC_ASSERT(p.mma_m_tiles == 4 || p.mma_m_tiles == 8);
    RC_ASSERT(p.tile_m == 16 * p.mma_m_tiles * p.mma_warps_m);
    RC_ASSERT(8 * p.mma_n_blocks == p.slice_rows);  // each workgroup multiplies its slice's rows of a
    RC_ASSERT(p.n_p2 == std::max(16, p.slice_rows));
    RC_ASSERT(p.slice_rows <= sk::wgmma_unsliced_rows(s.n));
    RC_ASSERT((p.mma_n_blocks & (p.mma_n_blocks - 1)) == 0);
    RC_ASSERT(p.mma_panels >= 1 && p.mma_panels <= sk::kWgmmaMaxPanels && p.mma_panels % p.k_groups == 0);
    {  // the kernel has a main loop for 1, 2 and 4 panels per k-group only (any other count would run as 4)
      const int per_group = p.mma_panels / p.k_groups;
      RC_ASSERT(per_group == 1 || per_group == 2 || per_group == 4);
    }
    RC_ASSERT(p.k_chunk % (p.mma_panels * sk::kWgmmaPanelK) == 0);  // bulk copies never cross a shard's end
    RC_ASSERT(p.tile_m <= 256 && 8 * p.mma_n_blocks <= 256);
    RC_ASSERT(p.mma_stages >= sk::kWgmmaMinStages && p.mma_stages <= sk::kWgmmaStages);
    {
      // The slot count keeps the most panels in flight ((slots - 1) x panels per slot, the ring and the k-group
      // reduction within the budget); a tie keeps 4 slots. Recomputed here from the ring's layout.
      const std::size_t rows = static_cast<std::size_t>(p.tile_m + 8 * p.mma_n_blocks);
      const std::size_t budget = sk::mma_lds_budget(p.mma_resident);
      const std::size_t kreduce = p.k_groups > 1 ? static_cast<std::size_t>(p.k_groups) * p.n_p2 * p.tile_m * 4 : 0;
      auto fits = [&](int st, int pn) {
        const std::size_t ring = st * pn * rows * sk::kWgmmaPanelK * 2 + sk::kWgmmaAlignSlack + st * 8;
        return std::max(ring, kreduce) <= budget;
      };
      RC_ASSERT(fits(p.mma_stages, p.mma_panels));
      RC_ASSERT(p.mma_panels == sk::kWgmmaMaxPanels || !fits(p.mma_stages, 2 * p.mma_panels));
      for (int st = sk::kWgmmaMinStages; st <= sk::kWgmmaStages; ++st)
        for (int pn = p.k_groups; pn <= sk::kWgmmaMaxPanels; pn *= 2)
          if (st != p.mma_stages && fits(st, pn)) {
            if (st > p.mma_stages) RC_ASSERT((st - 1) * pn < (p.mma_stages - 1) * p.mma_panels);
            else RC_ASSERT((st - 1) * pn <= (p.mma_stages - 1) * p.mma_panels);
          }
    }
    RC_ASSERT((p.tile_m + 8 * p.mma_n_blocks) * sk::kWgmmaPanelK * 2 % 1024 == 0);
    RC_ASSERT(p.mma_resident >= 1 && p.mma_resident <= sk::wgmma_blocks_per_sm(p.mma_n_blocks, p.mma_m_tiles / 4));
    RC_ASSERT(std::max(p.lds_main, p.lds_kreduce) <= sk::mma_lds_budget(p.mma_resident));
    if (opt.force_resident != 0) RC_ASSERT(p.mma_resident == opt.force_resident);
  } else if (p.mma) {
    // Tensor-core path: 8 warps tile the output and split the panels; each stage's K divides the chunk; the ring
    // and reduction fit the two-blocks-per-SM budget; per-warp branches stay uniform over 64-lane warp pairs.
    RC_ASSERT(p.mma_warps_m * p.mma_warps_n * p.k_groups == 8);
    RC_ASSERT(p.tile_m == 16 * p.mma_m_tiles * p.mma_warps_m);
    RC_ASSERT(8 * p.mma_n_blocks * p.mma_warps_n >= s.n);
    RC_ASSERT(8 * p.mma_n_blocks * p.mma_warps_n <= p.n_p2);
    RC_ASSERT(p.mma_panels % p.k_groups == 0);
    RC_ASSERT(p.k_chunk % (p.mma_panels * sk::kMmaPanelK) == 0);
    RC_ASSERT(std::max(p.lds_main, p.lds_kreduce) <=
              sk::mma_lds_budget(sk::mma_blocks_per_sm(p.mma_n_blocks, p.mma_m_tiles)));
    if (p.mma_warps_n > 1) RC_ASSERT(p.mma_warps_m >= 2);
  }
  RC_ASSERT(p.n_p2 >= std::min<std::int64_t>(s.n, p.slice_rows));  // every workgroup computes its slice's rows
  RC_ASSERT(p.m_padded >= s.m);
}

RC_GTEST_PROP(SkinnyPlanProps, ChunkkRuleIsCappedAndNeverFor16RowClass, ()) {
  const auto s = *gen_shape();
  const auto& arch = arch_of(*rc::gen::inRange(0, 3));
  const sk::SkinnyPlan p = sk::make_plan(s, arch);
  RC_ASSERT(p.ok);
  if (p.chunkk == 2) {
    RC_ASSERT(p.n_p2 > 16);
    RC_ASSERT(2 * p.cu_needed <= arch.compute_units);
    RC_ASSERT(p.k_rnd <= sk::kChunkkShardCap);
  }
}

TEST(SkinnyPlan, Gfx950BugShapeLegacyOverflowsAndFixedBatches) {
  // known-bugs #1: N >= 65 (N_p2 = 128, two 64-row N-tiles, 8 KiB per shard), K = 5248, the pre-fix CHUNKK
  // rule picks CHUNKK = 2 -> k_rnd = ceil(5248/256) = 21 -> 21 · 8 KiB = 172,032 B > 163,840 B.
  sk::SkinnyShape s = shape_nmk(65, 16, 5248);
  const auto legacy = sk::make_plan(s, port::kGfx950, {sk::SkinnyVariant::readback_one_pass, 0});
  ASSERT_TRUE(legacy.ok) << legacy.reason;
  EXPECT_EQ(legacy.n_p2, 128);
  EXPECT_EQ(legacy.tile_m, 16);
  EXPECT_EQ(legacy.chunkk, 2);
  EXPECT_EQ(legacy.k_rnd, 21);
  EXPECT_EQ(legacy.readback_batch_shards, 21);
  EXPECT_EQ(legacy.lds_readback, 172032u);
  EXPECT_EQ(legacy.lds_alloc_bytes, 163840u);
  // The fixed rule caps CHUNKK = 2 at 11 shards: CHUNKK = 1, k_rnd = 11, one batch.
  const auto fixed = sk::make_plan(s, port::kGfx950);
  EXPECT_EQ(fixed.chunkk, 1);
  EXPECT_EQ(fixed.k_rnd, 11);
  EXPECT_EQ(fixed.readback_batches, 1);
  // Forcing CHUNKK = 2 on the fixed kernel: 20 shards per batch (20 · 8 KiB <= 160 KiB), 2 batches.
  const auto forced = sk::make_plan(s, port::kGfx950, {sk::SkinnyVariant::fixed, 2});
  EXPECT_EQ(forced.k_rnd, 21);
  EXPECT_EQ(forced.readback_batch_shards, 20);
  EXPECT_EQ(forced.readback_batches, 2);
  // N = 32 class (4 KiB per shard) breaks only from k_rnd = 41 (K = 10368 with CHUNKK = 2).
  s.n = 32;
  s.m = 32;
  s.k = 10368;
  const auto l32 = sk::make_plan(s, port::kGfx950, {sk::SkinnyVariant::readback_one_pass, 0});
  EXPECT_EQ(l32.k_rnd, 41);
  EXPECT_GT(l32.lds_readback, 163840u);
  s.k = 10240;
  EXPECT_LE(sk::make_plan(s, port::kGfx950, {sk::SkinnyVariant::readback_one_pass, 0}).lds_readback, 163840u);
}

TEST(SkinnyPlan, OptimisticPredicateUndercountsWhenChunkkIsTwo) {
  sk::SkinnyShape s = shape_nmk(40, 64, 2048);
  const auto real = sk::make_plan(s, port::kGfx950);
  ASSERT_EQ(real.chunkk, 2);  // 4·4 tiles·shards = 16, 32 <= 256; ceil(2048/256) = 8 <= 11
  const auto opt = sk::make_plan(s, port::kGfx950, {sk::SkinnyVariant::optimistic_workspace_predicate, 0});
  // Predicate counts ceil(2048/512) = 4 slabs, the kernel writes 8: exactly half the slab bytes.
  const std::size_t slab = static_cast<std::size_t>(opt.tiles_m) * opt.n_p2 * opt.tile_m * 4;
  EXPECT_EQ(opt.workspace_need_bytes - opt.workspace_bytes, 4 * slab);
  EXPECT_EQ(real.workspace_bytes, opt.workspace_need_bytes);
}

TEST(SkinnyPlan, RefusalsNameTheLimit) {
  sk::SkinnyShape s = shape_nmk(129, 64, 512);
  auto p = sk::make_plan(s, port::kGfx950);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("N=129"), std::string::npos) << p.reason;
  s.n = 0;
  EXPECT_FALSE(sk::can_implement(s, port::kGfx950));
  s.n = 4;
  s.k = 12;
  p = sk::make_plan(s, port::kSm90);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("K=12"), std::string::npos) << p.reason;
  s.k = 512;
  s.lda = 500;
  p = sk::make_plan(s, port::kGfx942);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("row stride"), std::string::npos) << p.reason;
  EXPECT_EQ(sk::workspace_size(s, port::kGfx942), 0u);
  // A workspace need above the limit is refused, with both numbers.
  s.lda = 0;
  s.n = 128;
  s.m = 200000;
  p = sk::make_plan(s, port::kSm90);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("workspace"), std::string::npos) << p.reason;
}

// A warpgroup instance built for two workgroups per SM can be planned for one with a ring twice as deep; an
// instance built for one cannot be forced to two, and the refusal says so.
TEST(SkinnyPlan, WarpgroupResidencyIsAChoiceOfThePlan) {
  sk::SkinnyShape s = shape_nmk(4, 7168, 16384);
  sk::SkinnyOptions two{sk::SkinnyVariant::fixed, 0, 1, 0, 4, 2, 2, sk::wgmma_unsliced_rows(s.n)}, one = two;
  one.force_resident = 1;
  const sk::SkinnyPlan p2 = sk::make_plan(s, port::kSm90, two), p1 = sk::make_plan(s, port::kSm90, one);
  ASSERT_TRUE(p2.ok && p1.ok) << p2.reason << " / " << p1.reason;
  EXPECT_EQ(p2.mma_resident, 2);
  EXPECT_EQ(p1.mma_resident, 1);
  // One per SM keeps more panels in flight ((slots - 1) x panels per slot; see RingSlotsKeepTheMostPanelsInFlight).
  EXPECT_GT((p1.mma_stages - 1) * p1.mma_panels, (p2.mma_stages - 1) * p2.mma_panels)
      << p1.describe() << " vs " << p2.describe();
  EXPECT_GT(p1.lds_alloc_bytes, sk::mma_lds_budget(2));
  s.n = 128;  // 128 rows of a: every warpgroup instance runs one workgroup per SM
  two.force_slice_rows = sk::wgmma_unsliced_rows(s.n);
  const sk::SkinnyPlan r = sk::make_plan(s, port::kSm90, two);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("force_resident=2"), std::string::npos) << r.reason;
}

// The warpgroup ring has 4 slots, or 3 larger ones where that keeps more panels (128-byte rows of tile_m + slice
// rows) in flight, (slots - 1) x panels per slot, within the LDS budget (200 KiB at one workgroup per SM, 112 KiB at
// two). Layouts that fit only with 3 slots are admitted.
TEST(SkinnyPlan, RingSlotsKeepTheMostPanelsInFlight) {
  struct Case {
    int n, m_tiles, resident, stages, panels;
    const char* why;
  };
  const Case cases[] = {
      {4, 4, 2, 3, 4, "72 rows (9 KiB panels) at two per SM: 3 x 4 panels = 109 KiB (8 in flight), 4 x 4 exceed"},
      {4, 4, 1, 4, 4, "72 rows at one per SM: 4 x 4 panels = 145 KiB (12 in flight)"},
      {64, 4, 1, 3, 4, "128 rows (16 KiB panels): 3 x 4 = 193 KiB (8 in flight) beats 4 x 2 (6)"},
      {128, 4, 1, 4, 2, "192 rows (24 KiB): 4 x 2 = 193 KiB (6 in flight) beats 3 x 2 (4); 3 x 4 exceeds"},
      {128, 8, 1, 3, 2, "256 rows (32 KiB), two k-groups (2 panels a slot at least): only 3 x 2 = 193 KiB fits"},
  };
  for (const Case& c : cases) {
    const sk::SkinnyShape s = shape_nmk(c.n, 7168, 16384);
    sk::SkinnyOptions o{sk::SkinnyVariant::fixed, 0, 1, 0, c.m_tiles, 2, c.resident, sk::wgmma_unsliced_rows(c.n)};
    const sk::SkinnyPlan p = sk::make_plan(s, port::kSm90, o);
    ASSERT_TRUE(p.ok) << c.why << ": " << p.reason;
    EXPECT_EQ(p.mma_stages, c.stages) << c.why << ": " << p.describe();
    EXPECT_EQ(p.mma_panels, c.panels) << c.why << ": " << p.describe();
  }
}

// The shards of a warpgroup split plan reduced through a thread-block cluster: same tiling, shards and grid as the
// workspace plan, no workspace; at most the arch's cluster size of shards; never on CDNA, the m16n8k16 kernel, a
// one-shard plan or a bug-zoo variant (each refusal names why).
TEST(SkinnyPlan, ClusterReductionIsAPlanChoice) {
  const sk::SkinnyShape s = shape_nmk(32, 1024, 2048);  // 4 chunks of 512
  sk::SkinnyOptions o{sk::SkinnyVariant::fixed, 1, 1, 1, 4, 2, 0, 32};  // 64-row tiles, one chunk per shard
  o.force_cluster_reduce = 2;
  const sk::SkinnyPlan cl = sk::make_plan(s, port::kSm90, o);
  o.force_cluster_reduce = 1;
  const sk::SkinnyPlan ws = sk::make_plan(s, port::kSm90, o);
  ASSERT_TRUE(cl.ok && ws.ok) << cl.reason << " / " << ws.reason;
  EXPECT_TRUE(cl.cluster_reduce);
  EXPECT_FALSE(ws.cluster_reduce);
  EXPECT_EQ(cl.shard_reduction(), "cluster");
  EXPECT_EQ(ws.shard_reduction(), "workspace");
  EXPECT_EQ(cl.k_rnd, 4);
  EXPECT_EQ(cl.cluster_blocks, 4);
  EXPECT_EQ(ws.cluster_blocks, 1);
  EXPECT_EQ(cl.grid, ws.grid);
  EXPECT_EQ(cl.workspace_bytes, 0u);
  EXPECT_GT(ws.workspace_bytes, 0u);
  EXPECT_EQ(cl.lds_readback, 0u);
  EXPECT_NE(cl.describe().find("reduce=cluster"), std::string::npos) << cl.describe();
  // The model's choice without forcing is one of the two (whichever it costs lower).
  o.force_cluster_reduce = 0;
  const sk::SkinnyPlan pick = sk::make_plan(s, port::kSm90, o);
  EXPECT_EQ(pick.mma_model_cost, std::min(cl.mma_model_cost, ws.mma_model_cost));
  auto refused = [&](const sk::SkinnyShape& sh, const port::ArchProfile& arch, sk::SkinnyOptions opt,
                     const std::string& why) {
    opt.force_cluster_reduce = 2;
    const sk::SkinnyPlan r = sk::make_plan(sh, arch, opt);
    EXPECT_FALSE(r.ok) << r.describe();
    EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
  };
  refused(shape_nmk(32, 1024, 512), port::kSm90, o, "with 1 K-shard(s)");  // one chunk
  sk::SkinnyOptions sixteen = o;
  sixteen.force_chunkk = 2;
  sixteen.force_chunks_per_shard = 1;
  refused(shape_nmk(32, 1024, 4096), port::kSm90, sixteen, "with 16 K-shard(s): a cluster holds 2..8");
  sk::SkinnyOptions mma = o;
  mma.force_kernel = sk::TensorCoreKernel::mma_m16n8k16;
  refused(s, port::kSm90, mma, "warpgroup kernel");
  refused(s, port::kGfx950, sk::SkinnyOptions{}, "warpgroup kernel");
  sk::SkinnyOptions zoo = o;
  zoo.variant = sk::SkinnyVariant::optimistic_workspace_predicate;
  refused(s, port::kSm90, zoo, "bug-zoo variants");
}

// The warpgroup kernel may split the output rows into slices: one workgroup per (M-tile, slice, K-shard), a
// counter and a slab per (M-tile, slice); slices of N = 65 by 32 rows are 3 (no empty fourth). Other kernels and
// other row counts are refused, naming the option.
TEST(SkinnyPlan, OutputRowSlicesAreAPlanChoice) {
  sk::SkinnyShape s = shape_nmk(128, 1024, 2048);
  sk::SkinnyOptions o{sk::SkinnyVariant::fixed, 1, 1, 1, 4, 2, 0, 64};  // 64-row tiles, 4 shards, 2 slices of 64
  o.force_cluster_reduce = 1;  // through the workspace (its slabs and counters are counted below)
  const sk::SkinnyPlan two = sk::make_plan(s, port::kSm90, o);
  o.force_slice_rows = 128;
  const sk::SkinnyPlan one = sk::make_plan(s, port::kSm90, o);
  ASSERT_TRUE(two.ok && one.ok) << two.reason << " / " << one.reason;
  EXPECT_EQ(one.n_slices, 1);
  EXPECT_EQ(two.n_slices, 2);
  EXPECT_EQ(two.slice_rows, 64);
  EXPECT_EQ(two.mma_n_blocks, 8);  // the m64n64k16 instance
  EXPECT_EQ(two.n_p2, 64);
  EXPECT_EQ(two.k_rnd, 4);
  EXPECT_EQ(two.grid, 16 * 2 * 4);  // M-tiles x slices x shards
  EXPECT_EQ(two.counter_bytes, 16u * 2 * 4);
  EXPECT_EQ(two.partial_bytes, one.partial_bytes);  // the same outputs, in twice as many half-height slabs
  EXPECT_EQ(two.partial_bytes, 4u * 16 * 2 * 64 * 64 * 4);
  s.n = 65;
  o.force_slice_rows = 32;
  const sk::SkinnyPlan three = sk::make_plan(s, port::kSm90, o);
  ASSERT_TRUE(three.ok) << three.reason;
  EXPECT_EQ(three.n_slices, 3);
  for (int bad : {12, 4, 256}) {
    o.force_slice_rows = bad;
    const sk::SkinnyPlan r = sk::make_plan(s, port::kSm90, o);
    EXPECT_FALSE(r.ok) << r.describe();
    EXPECT_NE(r.reason.find("slice_rows=" + std::to_string(bad)), std::string::npos) << r.reason;
  }
  o.force_slice_rows = 32;
  o.force_kernel = sk::TensorCoreKernel::mma_m16n8k16;
  const sk::SkinnyPlan mma = sk::make_plan(s, port::kSm90, o);
  EXPECT_FALSE(mma.ok);
  EXPECT_NE(mma.reason.find("warpgroup kernel"), std::string::npos) << mma.reason;
  o.force_kernel = sk::TensorCoreKernel::plan_choice;
  EXPECT_FALSE(sk::make_plan(s, port::kGfx950, o).ok);  // no warpgroup kernel on CDNA
}

TEST(SkinnyPlan, Gfx942TilesFitItsSmallLds) {
  // The appendix: the gfx950 N_p2 = 128 A tile alone exceeds 64 KiB; the gfx942 plan picks a smaller chunk.
  sk::SkinnyShape s = shape_nmk(128, 256, 4096);
  const auto p = sk::make_plan(s, port::kGfx942);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.k_chunk * p.chunkk, 128);  // (128 + 16) · (256 + 8) · 2 = 76,032 > 65,536; 128 fits
  EXPECT_LE(p.lds_main, 65536u);
  const auto q = sk::make_plan(s, port::kGfx950);
  EXPECT_EQ(q.k_chunk * q.chunkk, 512);
}

// The sm_90 plan is the cheapest admitted layout under its own model: no forced (16-row tiles per warp, warps
// along M) layout with the model's split has a lower modelled cost, and a forced layout is what was forced.
RC_GTEST_PROP(SkinnyPlanProps, Sm90AutoPlanIsTheModelsCheapestLayout, ()) {
  const auto s = *gen_shape();
  const sk::SkinnyPlan best = sk::make_plan(s, port::kSm90);
  RC_ASSERT(best.ok);
  RC_ASSERT(best.mma);
  // The producer-warp kernel is taken by its rule, outside the model (ProducerWarpIsTakenByItsRule).
  RC_ASSERT(best.producer_warp == sk::producer_warp_preferred(s, port::kSm90));
  if (best.producer_warp) return;
  for (sk::TensorCoreKernel kernel : {sk::TensorCoreKernel::mma_m16n8k16, sk::TensorCoreKernel::wgmma})
    for (int mt : {1, 2, 4, 8})
      for (int wm : {1, 2, 4}) {
        sk::SkinnyOptions opt;
        opt.force_m_tiles = mt;
        opt.force_warps_m = wm;
        opt.force_kernel = kernel;
        const sk::SkinnyPlan c = sk::make_plan(s, port::kSm90, opt);
        if (!c.ok) continue;
        RC_ASSERT(c.wgmma == (kernel == sk::TensorCoreKernel::wgmma));
        RC_ASSERT(c.mma_m_tiles == mt);
        RC_ASSERT(c.mma_warps_m == wm);
        RC_ASSERT(best.mma_model_cost <= c.mma_model_cost);
      }
}

// The producer-warp kernel is the plan's choice (sm90_plan.hpp, kPwMaxRowsPartialGrid): unsplit on grids of at
// least 3/4 of the SMs in 64-row tiles (M >= 6336 on the H200: 99 tiles), and for N <= 64 also from SMs / 4 tiles
// (M >= 2112) with K <= 8192; split into a cluster of shards (the most that run in one wave) where the tiles leave
// half the SMs idle (2 · tiles <= SMs, at its edge too) and K >= 4096, for N > 64 only from SMs / 4 tiles; in 32-row
// output slices for N > 32 on 16 to 32 tiles with K < 4096, in 64-row slices split into shards for N > 64 there with
// 4096 <= K <= 8192; its deep one-panel ring from 3/4 of the SMs or where K % 64 != 0. Any forced layout option,
// another arch or a bug-zoo variant keeps the split-K kernels; forced (force_kernel = producer_warp) it takes any N on sm_90 and
// is refused elsewhere or with a forced layout, naming the rule.
TEST(SkinnyPlan, ProducerWarpIsTakenByItsRule) {
  struct Case {
    std::int64_t n, m, k;
    bool pw;
    int stages, panels, shards;
  };
  const Case cases[] = {
      {1, 4096, 2048, true, 8, 2, 1},     {32, 4096, 8192, true, 8, 2, 1},   {32, 4096, 8200, true, 16, 1, 2},
      {16, 7168, 7168, true, 16, 1, 1},   {1, 7168, 16384, true, 16, 1, 1},  {4, 4096, 2056, true, 16, 1, 1},
      {17, 2112, 512, true, 8, 2, 1},     {17, 2048, 512, false, 0, 0, 0},   {1, 1024, 2048, false, 0, 0, 0},
      {1, 1024, 7168, true, 8, 2, 6},     {64, 4096, 7168, true, 6, 2, 1},   {33, 7168, 2048, true, 12, 1, 1},
      {64, 4096, 16384, true, 6, 2, 2},   {64, 1024, 16384, true, 6, 2, 6},  {128, 7168, 16384, true, 8, 1, 1},
      {65, 6336, 2048, true, 8, 1, 1},    {128, 4096, 2048, false, 0, 0, 0}, {128, 4096, 7168, true, 4, 2, 2},
      {128, 1024, 7168, true, 6, 2, 3},   {100, 6272, 2048, false, 0, 0, 0}, {32, 1024, 2048, false, 0, 0, 0},
      {64, 1024, 2048, true, 8, 2, 1},    {128, 1024, 2048, true, 8, 2, 1},  {128, 960, 2048, false, 0, 0, 0},
      {128, 1024, 4096, true, 6, 2, 3},   {100, 2048, 8192, true, 6, 2, 2},  {100, 2048, 8200, false, 0, 0, 0},
      {128, 1024, 16384, false, 0, 0, 0}, {128, 960, 7168, false, 0, 0, 0},  {65, 2112, 7168, true, 4, 2, 3},
      {128, 4224, 7168, true, 4, 2, 2},   {128, 4225, 7168, false, 0, 0, 0}};  // 2·66 tiles = the SMs; 2·67 above
  for (const Case& c : cases) {
    const sk::SkinnyPlan p = sk::make_plan(shape_nmk(c.n, c.m, c.k), port::kSm90);
    ASSERT_TRUE(p.ok) << p.describe();
    EXPECT_EQ(p.producer_warp, c.pw) << p.describe();
    if (c.pw) {
      EXPECT_EQ(p.mma_stages, c.stages) << p.describe();
      EXPECT_EQ(p.mma_panels, c.panels) << p.describe();
      EXPECT_EQ(p.k_rnd, c.shards) << p.describe();
      EXPECT_EQ(p.cluster_reduce, c.shards > 1) << p.describe();
      // 32-row slices for N > 32 on 16 to 32 tiles with K < 4096, 64-row slices for N > 64 there with 4096 <= K
      // <= 8192, else all rows of a in one workgroup.
      const bool few_tiles = c.m / 64 >= 16 && c.m / 64 < 33;
      const int rows = c.n > 32 && few_tiles && c.k < 4096                   ? 32
                       : c.n > 64 && few_tiles && c.k >= 4096 && c.k <= 8192 ? 64
                                                                              : sk::wgmma_unsliced_rows(c.n);
      EXPECT_EQ(p.slice_rows, rows) << p.describe();
      EXPECT_EQ(p.grid, (c.m + 63) / 64 * p.n_slices * c.shards);
    }
  }
  for (const Case& c : cases) EXPECT_EQ(sk::make_plan(shape_nmk(c.n, c.m, c.k), port::kSm90).tile_m, 64);
  const sk::SkinnyShape s = shape_nmk(4, 4096, 2048);
  sk::SkinnyOptions o;
  o.force_kernel = sk::TensorCoreKernel::wgmma;
  EXPECT_TRUE(sk::make_plan(s, port::kSm90, o).wgmma);
  o = {};
  o.force_chunks_per_shard = 2;
  EXPECT_FALSE(sk::make_plan(s, port::kSm90, o).producer_warp);
  EXPECT_FALSE(sk::make_plan(s, port::kGfx950).producer_warp);
  EXPECT_FALSE(sk::make_plan(s, port::kSm90, {sk::SkinnyVariant::readback_one_pass}).producer_warp);
  o = {};
  o.force_kernel = sk::TensorCoreKernel::producer_warp;
  const sk::SkinnyPlan small = sk::make_plan(shape_nmk(4, 64, 64), port::kSm90, o);  // forced: any grid
  EXPECT_TRUE(small.ok && small.producer_warp) << small.describe();
  const sk::SkinnyPlan amd = sk::make_plan(s, port::kGfx950, o);
  EXPECT_FALSE(amd.ok);
  EXPECT_NE(amd.reason.find("sm_90"), std::string::npos) << amd.reason;
  const sk::SkinnyPlan wide = sk::make_plan(shape_nmk(100, 4096, 2048), port::kSm90, o);  // forced: any N
  EXPECT_TRUE(wide.ok && wide.producer_warp && wide.slice_rows == 128) << wide.describe();
  o.force_slice_rows = 32;  // output-row slices, as the warpgroup kernel's
  const sk::SkinnyPlan sliced = sk::make_plan(shape_nmk(100, 4096, 2048), port::kSm90, o);
  EXPECT_TRUE(sliced.ok && sliced.producer_warp && sliced.n_slices == 4 && sliced.grid == 64 * 4) << sliced.describe();
  o.force_slice_rows = 0;
  o.force_m_tiles = 4;  // a layout of the split-K kernels
  const sk::SkinnyPlan layout = sk::make_plan(s, port::kSm90, o);
  EXPECT_FALSE(layout.ok);
  EXPECT_NE(layout.reason.find("one layout"), std::string::npos) << layout.reason;
}

// The wide tile by its rule (sm90_plan.hpp, kPwWideTileM): where the 64-row tiles fill 3/4 of the SMs (M >= 6273
// on the H200: 99 tiles), for at most 16 padded rows of a with rows x K <= 65536, one shard; its edges on each side.
TEST(SkinnyPlan, ProducerWarpWideTileIsTakenByItsRule) {
  struct Case {
    std::int64_t n, m, k;
    bool wide;
  };
  const Case cases[] = {{1, 7168, 2048, true},   {4, 7168, 8192, true},   {4, 7168, 8200, false},
                        {16, 7168, 4096, true},  {16, 7168, 4104, false}, {9, 6273, 4096, true},
                        {9, 6272, 4096, false},  {17, 7168, 2048, false}, {8, 7168, 7168, true},
                        {1, 16384, 16384, false}};
  for (const Case& c : cases) {
    const sk::SkinnyPlan p = sk::make_plan(shape_nmk(c.n, c.m, c.k), port::kSm90);
    ASSERT_TRUE(p.ok && p.producer_warp) << p.describe();
    EXPECT_EQ(p.tile_m, c.wide ? 128 : 64) << p.describe();
    EXPECT_EQ(p.k_groups, c.wide ? 1 : 2) << p.describe();
    if (c.wide) {
      EXPECT_EQ(p.k_rnd, 1) << p.describe();
      EXPECT_EQ(p.grid, (c.m + 127) / 128) << p.describe();
      EXPECT_EQ(p.mma_panels, c.k % 64 == 0 ? 2 : 1) << p.describe();  // its grid leaves SMs free: the wide ring
    }
  }
  sk::SkinnyOptions o;
  o.force_kernel = sk::TensorCoreKernel::producer_warp;
  o.force_chunks_per_shard = 4;  // a forced layout keeps the 64-row tile
  EXPECT_EQ(sk::make_plan(shape_nmk(1, 7168, 2048), port::kSm90, o).tile_m, 64);
}

// The producer-warp kernel's wide tile (force_pw_tile_m = 128): one workgroup per 128 rows of b, no k-groups, its
// ring from pw_ring's 128-row slots; refused for other tile heights or without the producer-warp kernel forced.
TEST(SkinnyPlan, ProducerWarpWideTileIsForcedOrRefused) {
  sk::SkinnyOptions o;
  o.force_kernel = sk::TensorCoreKernel::producer_warp;
  o.force_pw_tile_m = 128;
  const sk::SkinnyPlan p = sk::make_plan(shape_nmk(128, 4100, 2048), port::kSm90, o);
  ASSERT_TRUE(p.ok && p.producer_warp) << p.describe();
  EXPECT_EQ(p.tile_m, 128);
  EXPECT_EQ(p.k_groups, 1);
  EXPECT_EQ(p.grid, 33);  // ceil(4100 / 128) tiles, one shard
  EXPECT_EQ(p.mma_stages, 3);  // 192 KiB of (128 + 128) x 64 bf16 slots: 6, two panels each
  EXPECT_EQ(p.mma_panels, 2);
  EXPECT_NE(p.describe().find("b_tile=128"), std::string::npos) << p.describe();
  const sk::SkinnyPlan deep = sk::make_plan(shape_nmk(32, 4100, 2056), port::kSm90, o);  // K % 64 != 0: one panel
  ASSERT_TRUE(deep.ok) << deep.describe();
  EXPECT_EQ(deep.mma_stages, 9);  // (128 + 32) rows: 9 slots
  EXPECT_EQ(deep.mma_panels, 1);
  const sk::SkinnyPlan one = sk::make_plan(shape_nmk(1, 7168, 2048), port::kSm90, o);  // 8 padded rows of a
  ASSERT_TRUE(one.ok) << one.describe();
  EXPECT_EQ(one.grid, 56);
  EXPECT_EQ(one.mma_stages, 5);  // (128 + 8) rows: 11 one-panel slots, 5 of two panels
  EXPECT_EQ(one.mma_panels, 2);
  o.force_pw_tile_m = 96;
  const sk::SkinnyPlan odd = sk::make_plan(shape_nmk(64, 4096, 2048), port::kSm90, o);
  EXPECT_FALSE(odd.ok);
  EXPECT_NE(odd.reason.find("force_pw_tile_m=96"), std::string::npos) << odd.reason;
  o.force_kernel = sk::TensorCoreKernel::plan_choice;
  o.force_pw_tile_m = 128;
  const sk::SkinnyPlan unforced = sk::make_plan(shape_nmk(64, 4096, 2048), port::kSm90, o);
  EXPECT_FALSE(unforced.ok);
  EXPECT_NE(unforced.reason.find("producer-warp kernel only"), std::string::npos) << unforced.reason;
}
