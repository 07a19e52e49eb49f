// CPU-only tests of the skinny GEMM's portable plan: RapidCheck properties over the whole admitted shape space for
// each AMD profile (LDS phases fit, workspace covers what the kernel touches, the kernel's shard count is the
// predicate's), hand-derived plans at the known-bug shapes, refusals that name the limit, and the refusal of a
// profile that no kernel of the build serves. The sm_90 plan's are tests/kernels/nvidia/skinny_gemm/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"
#include "tests/kernels/skinny_gemm/skinny_plan_invariants.hpp"
#include "tests/kernels/skinny_gemm/skinny_plan_test_util.hpp"

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;

using namespace dsv4::test::skinny_plan;

RC_GTEST_PROP(SkinnyPlanProps, AdmittedShapesFitLdsAndWorkspace, ()) {
  const auto s = *gen_shape();
  const auto& arch = arch_of(*rc::gen::inRange(0, 2));
  const int force = *rc::gen::element(0, 1, 2);
  const sk::SkinnyOptions opt{sk::SkinnyVariant::fixed, force};
  const sk::SkinnyPlan p = sk::make_plan(s, arch, opt);
  if (!p.ok) RC_FAIL("refused: " + p.describe());  // every shape of the skinny range with K % 8 == 0 is admitted
  RC_ASSERT(!p.arch_layout);  // the portable kernel's plan
  check_admitted_plan(s, arch, p);
  check_workspace_split(p);  // its shards always meet in the workspace
  RC_ASSERT(p.n_slices == 1);  // output-row slices are an arch layout's
}

RC_GTEST_PROP(SkinnyPlanProps, ChunkkRuleIsCappedAndNeverFor16RowClass, ()) {
  const auto s = *gen_shape();
  check_chunkk_rule(s, arch_of(*rc::gen::inRange(0, 2)));
}

TEST(SkinnyPlan, Gfx950BugShapeLegacyOverflowsAndFixedBatches) {
  // known-bugs #1: N >= 65 (N_p2 = 128, two 64-row N-tiles, 8 KiB per shard), K = 5248, the pre-fix CHUNKK
  // rule picks CHUNKK = 2 -> k_rnd = ceil(5248/256) = 21 -> 21 · 8 KiB = 172,032 B > 163,840 B.
  sk::SkinnyShape s = shape_nmk(65, 16, 5248);
  const auto legacy = sk::make_plan(s, port::kGfx950, sk::SkinnyOptions{sk::SkinnyVariant::readback_one_pass, 0});
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
  const auto forced = sk::make_plan(s, port::kGfx950, sk::SkinnyOptions{sk::SkinnyVariant::fixed, 2});
  EXPECT_EQ(forced.k_rnd, 21);
  EXPECT_EQ(forced.readback_batch_shards, 20);
  EXPECT_EQ(forced.readback_batches, 2);
  // N = 32 class (4 KiB per shard) breaks only from k_rnd = 41 (K = 10368 with CHUNKK = 2).
  s.n = 32;
  s.m = 32;
  s.k = 10368;
  const auto l32 = sk::make_plan(s, port::kGfx950, sk::SkinnyOptions{sk::SkinnyVariant::readback_one_pass, 0});
  EXPECT_EQ(l32.k_rnd, 41);
  EXPECT_GT(l32.lds_readback, 163840u);
  s.k = 10240;
  EXPECT_LE(sk::make_plan(s, port::kGfx950, sk::SkinnyOptions{sk::SkinnyVariant::readback_one_pass, 0}).lds_readback, 163840u);
}

TEST(SkinnyPlan, OptimisticPredicateUndercountsWhenChunkkIsTwo) {
  sk::SkinnyShape s = shape_nmk(40, 64, 2048);
  const auto real = sk::make_plan(s, port::kGfx950);
  ASSERT_EQ(real.chunkk, 2);  // 4·4 tiles·shards = 16, 32 <= 256; ceil(2048/256) = 8 <= 11
  const auto opt = sk::make_plan(s, port::kGfx950, sk::SkinnyOptions{sk::SkinnyVariant::optimistic_workspace_predicate, 0});
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
  p = sk::make_plan(s, port::kGfx950);
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
  p = sk::make_plan(s, port::kGfx950);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("workspace"), std::string::npos) << p.reason;
}

// A profile that neither the portable kernel nor a registered arch path serves is refused by name, never planned as
// the portable kernel.
TEST(SkinnyPlan, AProfileWithoutAKernelIsRefused) {
  port::ArchProfile other = port::kGfx950;
  other.arch = static_cast<port::Arch>(99);
  other.name = "gfx_none";
  const auto p = sk::make_plan(shape_nmk(4, 64, 512), other);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("no skinny_gemm kernel for gfx_none"), std::string::npos) << p.reason;
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
