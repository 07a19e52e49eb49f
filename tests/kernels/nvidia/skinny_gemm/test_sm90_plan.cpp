// CPU-only tests of the sm_90 skinny plan (kernels/nvidia/skinny_gemm/sm90_plan.hpp): residency, ring slots,
// cluster reduction and output-row slices as plan choices, the time model's pick among the layouts, and the
// producer-warp kernel's rules (its tile of b, its split) at their edges, and how the sm_90 options and layout ride on
// the portable plan.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"
#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"
#include "tests/kernels/skinny_gemm/skinny_plan_test_util.hpp"

using namespace dsv4::test::skinny_plan;

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;

// A warpgroup instance built for two workgroups per SM can be planned for one with a ring twice as deep; an
// instance built for one cannot be forced to two, and the refusal says so.
TEST(SkinnyPlan, WarpgroupResidencyIsAChoiceOfThePlan) {
  sk::SkinnyShape s = shape_nmk(4, 7168, 16384);
  sk::Sm90Options two{{sk::SkinnyVariant::fixed, 0}, 1, 0, 4, sk::TensorCoreKernel::wgmma, 2,
                        sk::wgmma_unsliced_rows(s.n)},
      one = two;
  one.force_resident = 1;
  const sk::SkinnyPlan p2 = sk::make_plan(s, port::kSm90, two), p1 = sk::make_plan(s, port::kSm90, one);
  ASSERT_TRUE(p2.ok && p1.ok) << p2.reason << " / " << p1.reason;
  EXPECT_EQ(sk::sm90_layout(p2).mma_resident, 2);
  EXPECT_EQ(sk::sm90_layout(p1).mma_resident, 1);
  // One per SM keeps more panels in flight ((slots - 1) x panels per slot; see RingSlotsKeepTheMostPanelsInFlight).
  EXPECT_GT((sk::sm90_layout(p1).mma_stages - 1) * sk::sm90_layout(p1).mma_panels, (sk::sm90_layout(p2).mma_stages - 1) * sk::sm90_layout(p2).mma_panels)
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
    sk::Sm90Options o{{sk::SkinnyVariant::fixed, 0}, 1, 0, c.m_tiles, sk::TensorCoreKernel::wgmma, c.resident,
                        sk::wgmma_unsliced_rows(c.n)};
    const sk::SkinnyPlan p = sk::make_plan(s, port::kSm90, o);
    ASSERT_TRUE(p.ok) << c.why << ": " << p.reason;
    EXPECT_EQ(sk::sm90_layout(p).mma_stages, c.stages) << c.why << ": " << p.describe();
    EXPECT_EQ(sk::sm90_layout(p).mma_panels, c.panels) << c.why << ": " << p.describe();
  }
}

// The shards of a warpgroup split plan reduced through a thread-block cluster: same tiling, shards and grid as the
// workspace plan, no workspace; at most the arch's cluster size of shards; never on CDNA, the m16n8k16 kernel, a
// one-shard plan or a bug-zoo variant (each refusal names why).
TEST(SkinnyPlan, ClusterReductionIsAPlanChoice) {
  const sk::SkinnyShape s = shape_nmk(32, 1024, 2048);  // 4 chunks of 512
  sk::Sm90Options o{{sk::SkinnyVariant::fixed, 1}, 1, 1, 4, sk::TensorCoreKernel::wgmma, 0, 32};  // 64-row tiles, one chunk per shard
  o.force_cluster_reduce = 2;
  const sk::SkinnyPlan cl = sk::make_plan(s, port::kSm90, o);
  o.force_cluster_reduce = 1;
  const sk::SkinnyPlan ws = sk::make_plan(s, port::kSm90, o);
  ASSERT_TRUE(cl.ok && ws.ok) << cl.reason << " / " << ws.reason;
  EXPECT_TRUE(sk::sm90_layout(cl).cluster_reduce);
  EXPECT_FALSE(sk::sm90_layout(ws).cluster_reduce);
  EXPECT_STREQ(sk::sm90_shard_reduction(cl), "cluster");
  EXPECT_STREQ(sk::sm90_shard_reduction(ws), "workspace");
  EXPECT_EQ(cl.k_rnd, 4);
  EXPECT_EQ(sk::sm90_layout(cl).cluster_blocks, 4);
  EXPECT_EQ(sk::sm90_layout(ws).cluster_blocks, 1);
  EXPECT_EQ(cl.grid, ws.grid);
  EXPECT_EQ(cl.workspace_bytes, 0u);
  EXPECT_GT(ws.workspace_bytes, 0u);
  EXPECT_EQ(cl.lds_readback, 0u);
  EXPECT_NE(cl.describe().find("reduce=cluster"), std::string::npos) << cl.describe();
  // The model's choice without forcing is one of the two (whichever it costs lower).
  o.force_cluster_reduce = 0;
  const sk::SkinnyPlan pick = sk::make_plan(s, port::kSm90, o);
  EXPECT_EQ(sk::sm90_layout(pick).mma_model_cost, std::min(sk::sm90_layout(cl).mma_model_cost, sk::sm90_layout(ws).mma_model_cost));
  auto refused = [&](const sk::SkinnyShape& sh, const port::ArchProfile& arch, sk::Sm90Options opt,
                     const std::string& why) {
    opt.force_cluster_reduce = 2;
    const sk::SkinnyPlan r = sk::make_plan(sh, arch, opt);
    EXPECT_FALSE(r.ok) << r.describe();
    EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
  };
  refused(shape_nmk(32, 1024, 512), port::kSm90, o, "with 1 K-shard(s)");  // one chunk
  sk::Sm90Options sixteen = o;
  sixteen.force_chunkk = 2;
  sixteen.force_chunks_per_shard = 1;
  refused(shape_nmk(32, 1024, 4096), port::kSm90, sixteen, "with 16 K-shard(s): a cluster holds 2..8");
  sk::Sm90Options mma = o;
  mma.force_kernel = sk::TensorCoreKernel::mma_m16n8k16;
  refused(s, port::kSm90, mma, "warpgroup kernel");
  refused(s, port::kGfx950, sk::Sm90Options{}, "warpgroup kernel");
  sk::Sm90Options zoo = o;
  zoo.variant = sk::SkinnyVariant::optimistic_workspace_predicate;
  refused(s, port::kSm90, zoo, "bug-zoo variants");
}

// The sm_90 layout rides on the portable plan (SkinnyPlan::arch_layout): make_plan with the portable options reaches
// the sm_90 plan on sm_90 profiles (make_sm90_plan's with the default Sm90Options) and gives none on AMD profiles.
// There an Sm90Options field naming a kernel or a layout only sm_90 has is refused by name (after the shape's own
// refusal); the others leave the portable plan as it is.
TEST(SkinnyPlan, Sm90OptionsAndLayoutRideOnThePortablePlan) {
  const sk::SkinnyShape s = shape_nmk(32, 1024, 4096);
  const sk::SkinnyPlan sm90 = sk::make_plan(s, port::kSm90);
  ASSERT_TRUE(sm90.ok && sm90.arch_layout) << sm90.describe();
  EXPECT_EQ(&sk::sm90_layout(sm90), sm90.arch_layout.get());
  EXPECT_EQ(sm90.describe(), sk::make_sm90_plan(s, port::kSm90, {}).describe());
  EXPECT_EQ(sm90.layout_text().rfind("mma=", 0), 0u) << sm90.layout_text();
  EXPECT_NE(sm90.describe().find(sm90.layout_text()), std::string::npos) << sm90.describe();
  const sk::SkinnyPlan amd = sk::make_plan(s, port::kGfx950);
  ASSERT_TRUE(amd.ok) << amd.describe();
  EXPECT_FALSE(amd.arch_layout);
  EXPECT_FALSE(sk::sm90_layout(amd).mma);
  EXPECT_EQ(amd.layout_text(), "");
  sk::Sm90Options inert;
  inert.force_warps_m = 2;
  inert.force_m_tiles = 4;
  inert.force_chunks_per_shard = 3;
  inert.force_resident = 1;
  inert.force_cluster_reduce = 1;
  inert.allow_producer_warp = false;
  EXPECT_EQ(sk::make_plan(s, port::kGfx950, inert).describe(), amd.describe());
  struct Refusal {
    sk::Sm90Options opt;
    std::string names;
  };
  std::vector<Refusal> refusals(8);
  refusals[0].opt.force_kernel = sk::TensorCoreKernel::producer_warp, refusals[0].names = "force_kernel=producer_warp";
  refusals[1].opt.force_kernel = sk::TensorCoreKernel::wgmma, refusals[1].names = "force_kernel=wgmma";
  refusals[2].opt.force_kernel = sk::TensorCoreKernel::mma_m16n8k16, refusals[2].names = "force_kernel=mma_m16n8k16";
  refusals[3].opt.force_pw_tile_m = 128, refusals[3].names = "force_pw_tile_m";
  refusals[4].opt.force_slice_rows = 16, refusals[4].names = "force_slice_rows=16";
  refusals[5].opt.force_resident = 3, refusals[5].names = "force_resident=3";
  refusals[6].opt.force_cluster_reduce = 2, refusals[6].names = "cluster reduction";
  refusals[7].opt.force_cluster_reduce = 5, refusals[7].names = "force_cluster_reduce=5";
  for (const Refusal& r : refusals) {
    const sk::SkinnyPlan p = sk::make_plan(s, port::kGfx950, r.opt);
    EXPECT_FALSE(p.ok) << r.names;
    EXPECT_NE(p.reason.find(r.names), std::string::npos) << r.names << ": " << p.reason;
    EXPECT_FALSE(sk::can_implement(s, port::kGfx950, r.opt)) << r.names;
    EXPECT_EQ(sk::workspace_size(s, port::kGfx950, r.opt), 0u) << r.names;
  }
  const sk::SkinnyPlan wide_n = sk::make_plan(shape_nmk(200, 64, 512), port::kGfx950, refusals[0].opt);
  EXPECT_NE(wide_n.reason.find("N=200"), std::string::npos) << wide_n.reason;
}

// The warpgroup kernel may split the output rows into slices: one workgroup per (M-tile, slice, K-shard), a
// counter and a slab per (M-tile, slice); slices of N = 65 by 32 rows are 3 (no empty fourth). Other kernels and
// other row counts are refused, naming the option.
TEST(SkinnyPlan, OutputRowSlicesAreAPlanChoice) {
  sk::SkinnyShape s = shape_nmk(128, 1024, 2048);
  sk::Sm90Options o{{sk::SkinnyVariant::fixed, 1}, 1, 1, 4, sk::TensorCoreKernel::wgmma, 0, 64};  // 64-row tiles, 4 shards, 2 slices of 64
  o.force_cluster_reduce = 1;  // through the workspace (its slabs and counters are counted below)
  const sk::SkinnyPlan two = sk::make_plan(s, port::kSm90, o);
  o.force_slice_rows = 128;
  const sk::SkinnyPlan one = sk::make_plan(s, port::kSm90, o);
  ASSERT_TRUE(two.ok && one.ok) << two.reason << " / " << one.reason;
  EXPECT_EQ(one.n_slices, 1);
  EXPECT_EQ(two.n_slices, 2);
  EXPECT_EQ(two.slice_rows, 64);
  EXPECT_EQ(sk::sm90_layout(two).mma_n_blocks, 8);  // the m64n64k16 instance
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

// The sm_90 plan is the cheapest admitted layout under its own model: no forced (16-row tiles per warp, warps
// along M) layout with the model's split has a lower modelled cost, and a forced layout is what was forced.
RC_GTEST_PROP(SkinnyPlanProps, Sm90AutoPlanIsTheModelsCheapestLayout, ()) {
  const auto s = *gen_shape();
  const sk::SkinnyPlan best = sk::make_plan(s, port::kSm90);
  RC_ASSERT(best.ok);
  RC_ASSERT(sk::sm90_layout(best).mma);
  // The producer-warp kernel is taken by its rule, outside the model (ProducerWarpIsTakenByItsRule).
  RC_ASSERT(sk::sm90_layout(best).producer_warp == sk::producer_warp_preferred(s, port::kSm90));
  if (sk::sm90_layout(best).producer_warp) return;
  for (sk::TensorCoreKernel kernel : {sk::TensorCoreKernel::mma_m16n8k16, sk::TensorCoreKernel::wgmma})
    for (int mt : {1, 2, 4, 8})
      for (int wm : {1, 2, 4}) {
        sk::Sm90Options opt;
        opt.force_m_tiles = mt;
        opt.force_warps_m = wm;
        opt.force_kernel = kernel;
        const sk::SkinnyPlan c = sk::make_plan(s, port::kSm90, opt);
        if (!c.ok) continue;
        RC_ASSERT(sk::sm90_layout(c).wgmma == (kernel == sk::TensorCoreKernel::wgmma));
        RC_ASSERT(sk::sm90_layout(c).mma_m_tiles == mt);
        RC_ASSERT(sk::sm90_layout(c).mma_warps_m == wm);
        RC_ASSERT(sk::sm90_layout(best).mma_model_cost <= sk::sm90_layout(c).mma_model_cost);
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
    EXPECT_EQ(sk::sm90_layout(p).producer_warp, c.pw) << p.describe();
    if (c.pw) {
      EXPECT_EQ(sk::sm90_layout(p).mma_stages, c.stages) << p.describe();
      EXPECT_EQ(sk::sm90_layout(p).mma_panels, c.panels) << p.describe();
      EXPECT_EQ(p.k_rnd, c.shards) << p.describe();
      EXPECT_EQ(sk::sm90_layout(p).cluster_reduce, c.shards > 1) << p.describe();
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
  sk::Sm90Options o;
  o.force_kernel = sk::TensorCoreKernel::wgmma;
  EXPECT_TRUE(sk::sm90_layout(sk::make_plan(s, port::kSm90, o)).wgmma);
  o = {};
  o.force_chunks_per_shard = 2;
  EXPECT_FALSE(sk::sm90_layout(sk::make_plan(s, port::kSm90, o)).producer_warp);
  EXPECT_FALSE(sk::sm90_layout(sk::make_plan(s, port::kGfx950)).producer_warp);
  EXPECT_FALSE(sk::sm90_layout(sk::make_plan(s, port::kSm90, sk::SkinnyOptions{sk::SkinnyVariant::readback_one_pass})).producer_warp);
  o = {};
  o.force_kernel = sk::TensorCoreKernel::producer_warp;
  const sk::SkinnyPlan small = sk::make_plan(shape_nmk(4, 64, 64), port::kSm90, o);  // forced: any grid
  EXPECT_TRUE(small.ok && sk::sm90_layout(small).producer_warp) << small.describe();
  const sk::SkinnyPlan amd = sk::make_plan(s, port::kGfx950, o);
  EXPECT_FALSE(amd.ok);
  EXPECT_NE(amd.reason.find("sm_90"), std::string::npos) << amd.reason;
  const sk::SkinnyPlan wide = sk::make_plan(shape_nmk(100, 4096, 2048), port::kSm90, o);  // forced: any N
  EXPECT_TRUE(wide.ok && sk::sm90_layout(wide).producer_warp && wide.slice_rows == 128) << wide.describe();
  o.force_slice_rows = 32;  // output-row slices, as the warpgroup kernel's
  const sk::SkinnyPlan sliced = sk::make_plan(shape_nmk(100, 4096, 2048), port::kSm90, o);
  EXPECT_TRUE(sliced.ok && sk::sm90_layout(sliced).producer_warp && sliced.n_slices == 4 && sliced.grid == 64 * 4) << sliced.describe();
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
    ASSERT_TRUE(p.ok && sk::sm90_layout(p).producer_warp) << p.describe();
    EXPECT_EQ(p.tile_m, c.wide ? 128 : 64) << p.describe();
    EXPECT_EQ(p.k_groups, c.wide ? 1 : 2) << p.describe();
    if (c.wide) {
      EXPECT_EQ(p.k_rnd, 1) << p.describe();
      EXPECT_EQ(p.grid, (c.m + 127) / 128) << p.describe();
      EXPECT_EQ(sk::sm90_layout(p).mma_panels, c.k % 64 == 0 ? 2 : 1) << p.describe();  // its grid leaves SMs free: the wide ring
    }
  }
  sk::Sm90Options o;
  o.force_kernel = sk::TensorCoreKernel::producer_warp;
  o.force_chunks_per_shard = 4;  // a forced layout keeps the 64-row tile
  EXPECT_EQ(sk::make_plan(shape_nmk(1, 7168, 2048), port::kSm90, o).tile_m, 64);
}

// The producer-warp kernel's wide tile (force_pw_tile_m = 128): one workgroup per 128 rows of b, no k-groups, its
// ring from pw_ring's 128-row slots; refused for other tile heights or without the producer-warp kernel forced.
TEST(SkinnyPlan, ProducerWarpWideTileIsForcedOrRefused) {
  sk::Sm90Options o;
  o.force_kernel = sk::TensorCoreKernel::producer_warp;
  o.force_pw_tile_m = 128;
  const sk::SkinnyPlan p = sk::make_plan(shape_nmk(128, 4100, 2048), port::kSm90, o);
  ASSERT_TRUE(p.ok && sk::sm90_layout(p).producer_warp) << p.describe();
  EXPECT_EQ(p.tile_m, 128);
  EXPECT_EQ(p.k_groups, 1);
  EXPECT_EQ(p.grid, 33);  // ceil(4100 / 128) tiles, one shard
  EXPECT_EQ(sk::sm90_layout(p).mma_stages, 3);  // 192 KiB of (128 + 128) x 64 bf16 slots: 6, two panels each
  EXPECT_EQ(sk::sm90_layout(p).mma_panels, 2);
  EXPECT_NE(p.describe().find("b_tile=128"), std::string::npos) << p.describe();
  const sk::SkinnyPlan deep = sk::make_plan(shape_nmk(32, 4100, 2056), port::kSm90, o);  // K % 64 != 0: one panel
  ASSERT_TRUE(deep.ok) << deep.describe();
  EXPECT_EQ(sk::sm90_layout(deep).mma_stages, 9);  // (128 + 32) rows: 9 slots
  EXPECT_EQ(sk::sm90_layout(deep).mma_panels, 1);
  const sk::SkinnyPlan one = sk::make_plan(shape_nmk(1, 7168, 2048), port::kSm90, o);  // 8 padded rows of a
  ASSERT_TRUE(one.ok) << one.describe();
  EXPECT_EQ(one.grid, 56);
  EXPECT_EQ(sk::sm90_layout(one).mma_stages, 5);  // (128 + 8) rows: 11 one-panel slots, 5 of two panels
  EXPECT_EQ(sk::sm90_layout(one).mma_panels, 2);
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
