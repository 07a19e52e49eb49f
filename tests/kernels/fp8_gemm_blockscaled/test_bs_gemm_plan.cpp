// Plan tests of the block-scaled fp8 GEMM (and the fp8_einsum plan built on it): per-arch tiles and LDS (within half
// the profile's LDS, never above capacity), the tile rule over M, fp8 flavour per arch, refusals naming the broken
// limit (flavour, w_row_block, c without fp32 output, grid.y / grid.z, einsum expression and recipe).
#include <gtest/gtest.h>

#include "kernels/fp8_einsum/einsum_plan.hpp"
#include "kernels/fp8_gemm_blockscaled/bs_gemm_plan.hpp"

using namespace dsv4;
namespace bg = dsv4::kernels::bsgemm;
namespace ei = dsv4::kernels::einsum;

namespace {
bg::BsGemmShape shape(std::int64_t m, std::int64_t n, std::int64_t k, bg::Fp8 f = bg::Fp8::e4m3fn) {
  bg::BsGemmShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.fp8 = f;
  return s;
}
bg::Fp8 native(const port::ArchProfile& a) { return a.fp8 == port::Fp8Flavor::fnuz ? bg::Fp8::e4m3fnuz : bg::Fp8::e4m3fn; }
}  // namespace

TEST(BsGemmPlan, TilesAndLdsPerArch) {
  for (const port::ArchProfile* a : {&port::kGfx942, &port::kGfx950, &port::kSm90})
    for (std::int64_t m : {1, 16, 17, 32, 33, 64, 4096}) {
      const bg::BsGemmPlan p = bg::make_plan(shape(m, 1024, 4096, native(*a)), *a);
      ASSERT_TRUE(p.ok) << p.describe();
      EXPECT_EQ(p.bm, m <= 16 ? 16 : (m <= 32 ? 32 : 64)) << p.describe();
      EXPECT_EQ(p.bm * p.bn, bg::kBlockThreads * bg::kMicro * bg::kMicro);
      EXPECT_EQ(128 % p.k_step, 0);
      EXPECT_LE(p.lds_bytes, a->lds_bytes_per_block) << p.describe();
      EXPECT_EQ(p.lds_bytes, bg::lds_bytes_for(p.bm, p.bn, p.k_step));
      // k_step is the largest that fits half the LDS (32 is the floor).
      if (p.k_step < 128) {
        EXPECT_GT(bg::lds_bytes_for(p.bm, p.bn, p.k_step * 2), a->lds_bytes_per_block / 2);
      }
      if (p.k_step > 32) {
        EXPECT_LE(p.lds_bytes, a->lds_bytes_per_block / 2);
      }
      EXPECT_EQ(p.k_blocks, 32);
      EXPECT_EQ(p.grid[0], (1024 + p.bn - 1) / p.bn);
      EXPECT_EQ(p.grid[1], (m + p.bm - 1) / p.bm);
      EXPECT_EQ(p.workspace_bytes, 0u);
    }
  // The profiles differ: gfx942's 64 KiB gives a shorter K-step than gfx950's 160 KiB for the 64x64 tile.
  const auto p942 = bg::make_plan(shape(64, 64, 512, bg::Fp8::e4m3fnuz), port::kGfx942);
  const auto p950 = bg::make_plan(shape(64, 64, 512), port::kGfx950);
  EXPECT_EQ(p942.k_step, 32);
  EXPECT_EQ(p950.k_step, 128);
}

TEST(BsGemmPlan, FlavourFollowsTheArch) {
  EXPECT_TRUE(bg::can_implement(shape(4, 4, 128, bg::Fp8::e4m3fnuz), port::kGfx942));
  EXPECT_TRUE(bg::can_implement(shape(4, 4, 128, bg::Fp8::e4m3fn), port::kGfx950));
  EXPECT_TRUE(bg::can_implement(shape(4, 4, 128, bg::Fp8::e4m3fn), port::kSm90));
  const auto p = bg::make_plan(shape(4, 4, 128, bg::Fp8::e4m3fn), port::kGfx942);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("E4M3FNUZ"), std::string::npos) << p.reason;
  EXPECT_FALSE(bg::can_implement(shape(4, 4, 128, bg::Fp8::e4m3fnuz), port::kGfx950));
}

TEST(BsGemmPlan, RefusalsNameTheLimit) {
  auto s = shape(4, 4, 128);
  s.w_row_block = 64;
  EXPECT_NE(bg::make_plan(s, port::kGfx950).reason.find("w_row_block = 64"), std::string::npos);
  s = shape(4, 4, 128);
  s.has_c = true;
  EXPECT_NE(bg::make_plan(s, port::kGfx950).reason.find("fp32 output"), std::string::npos);
  s.out = bg::OutType::f32;
  EXPECT_TRUE(bg::make_plan(s, port::kGfx950).ok);
  s = shape(64 * 65536, 4, 128);  // 65536 M-tiles of 64 > grid.y's 65535
  const auto p = bg::make_plan(s, port::kGfx950);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("grid.y"), std::string::npos) << p.reason;
  s = shape(4, 4, 128);
  s.batch = 70000;
  EXPECT_NE(bg::make_plan(s, port::kGfx950).reason.find("grid.z"), std::string::npos);
  s = shape(-1, 4, 128);
  EXPECT_FALSE(bg::make_plan(s, port::kGfx950).ok);
  bg::BsGemmOptions o;
  o.wave_size = 16;
  EXPECT_NE(bg::make_plan(shape(4, 4, 128), port::kGfx950, o).reason.find("wave size 16"), std::string::npos);
  // K not a multiple of 128 is inside the contract (partial last block), K = 0 too (d = 0 or c).
  EXPECT_TRUE(bg::can_implement(shape(3, 5, 300), port::kGfx950));
  EXPECT_EQ(bg::make_plan(shape(3, 5, 0), port::kGfx950).k_blocks, 0);
}

TEST(EinsumPlan, MapsHeadsToBatchAndRefuses) {
  ei::EinsumShape s;
  s.b = 17;
  s.h = 8;
  s.r = 4096;
  s.d = 1024;
  const auto p = ei::make_einsum_plan(s, port::kGfx950);
  ASSERT_TRUE(p.ok) << p.describe();
  EXPECT_EQ(p.gemm.grid[2], 8);
  EXPECT_EQ(p.gemm.shape.m, 17);
  EXPECT_EQ(p.gemm.shape.n, 1024);
  EXPECT_EQ(p.gemm.shape.k, 4096);
  EXPECT_EQ(p.gemm.shape.w_row_block, 128);
  EXPECT_EQ(p.gemm.bm, 32);
  s.recipe = "1,1,128";
  EXPECT_EQ(ei::make_einsum_plan(s, port::kGfx950).gemm.shape.w_row_block, 1);
  s.has_c = true;
  EXPECT_EQ(ei::make_einsum_plan(s, port::kGfx950).gemm.shape.out, bg::OutType::f32);
  s.recipe = "1,64,128";
  EXPECT_NE(ei::make_einsum_plan(s, port::kGfx950).reason.find("recipe"), std::string::npos);
  s.recipe = "1,128,128";
  s.expr = "bhd,hdr->bhr";
  EXPECT_NE(ei::make_einsum_plan(s, port::kGfx950).reason.find("not implemented"), std::string::npos);
  s.expr = "bhr,hdr->bhd";
  EXPECT_FALSE(ei::make_einsum_plan(s, port::kGfx942).ok);  // e4m3fn operands on gfx942
}
