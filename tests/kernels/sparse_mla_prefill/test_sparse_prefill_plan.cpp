// Plan properties of the sparse_mla_prefill kernel: tile sizes per arch profile for the V3.2 / V4 shapes (gfx942
// 64 KiB, gfx950 160 KiB, sm_90 227 KiB; known-bugs #11), every admitted plan's LDS regions disjoint and within the
// capacity over a sweep of shapes, refusals naming the broken limit, and the launcher refusing before launch.
#include <gtest/gtest.h>

#include "kernels/kernel_registry.hpp"
#include "kernels/sparse_mla_prefill/sparse_mla_prefill.hpp"

using namespace dsv4;
namespace sp = dsv4::kernels::sparse_prefill;

namespace {

sp::PrefillShape shape(std::int64_t h_q, std::int64_t d_qk, std::int64_t topk) {
  sp::PrefillShape s;
  s.s_q = 4096;
  s.h_q = h_q;
  s.d_qk = d_qk;
  s.d_v = 512;
  s.s_kv = 65536;
  s.topk = topk;
  return s;
}

void expect_invariants(const sp::PrefillPlan& p, const port::ArchProfile& a) {
  ASSERT_TRUE(p.ok) << p.describe();
  EXPECT_LE(p.lds_bytes, a.lds_bytes_per_block) << p.describe();
  std::size_t end = 0;
  for (const auto& r : p.lds_regions()) {
    EXPECT_EQ(r.offset, end) << r.name;
    EXPECT_EQ(r.offset % 16, 0u) << r.name << " must be 16-byte aligned for vector LDS access";
    end = r.offset + r.bytes;
  }
  EXPECT_EQ(end, p.lds_bytes);
  EXPECT_LE(p.heads_per_thread, sp::kMaxHeadsPerThread);
  EXPECT_LE(p.heads, sp::kMaxHeadsPerBlock);
  EXPECT_GE(p.head_slots * p.col_groups, 1);
  EXPECT_LE(p.head_slots * p.col_groups, sp::kBlockThreads);
  EXPECT_EQ(p.grid_y * p.heads >= p.shape.h_q, true);
  EXPECT_EQ(p.workspace_bytes, 0u);
}

}  // namespace

TEST(SparsePrefillPlan, TilePerArchForModelShapes) {
  struct Want {
    port::Arch arch;
    int tile;
  };
  // heads 16, d_qk 576 or 512: q stage 18.3/16.3 KiB; each kv row 1168/1040 B. gfx950 fits 128 rows of 1040 B
  // (158656 B of 163840) but only 64 of 1168 B.
  for (std::int64_t d_qk : {576, 512})
    for (std::int64_t h_q : {64, 128})
      for (const Want w : {Want{port::Arch::gfx942, 32}, Want{port::Arch::gfx950, d_qk == 576 ? 64 : 128},
                           Want{port::Arch::sm_90, 128}}) {
        const auto& a = port::profile(w.arch);
        const sp::PrefillPlan p = sp::make_plan(shape(h_q, d_qk, 2048), a);
        expect_invariants(p, a);
        EXPECT_EQ(p.heads, 16) << p.describe();
        EXPECT_EQ(p.tile_k, w.tile) << p.describe();
        EXPECT_EQ(p.grid_x, 4096);
        EXPECT_EQ(p.grid_y, h_q / 16);
        EXPECT_EQ(p.k_tiles, 2048 / w.tile);
        // The next larger tile would break the capacity (the plan takes the largest that fits).
        if (w.tile < 128) {
          EXPECT_GT(sp::lds_footprint(16, 2 * w.tile, d_qk), a.lds_bytes_per_block);
        }
      }
}

TEST(SparsePrefillPlan, EveryAdmittedPlanFitsItsArch) {
  int admitted = 0;
  for (port::Arch arch : {port::Arch::gfx942, port::Arch::gfx950, port::Arch::sm_90})
    for (std::int64_t d_qk = 8; d_qk <= 1024; d_qk += 56)
      for (std::int64_t h_q : {1, 3, 16, 17, 64, 128})
        for (std::int64_t topk : {0, 1, 40, 64, 100, 2048}) {
          sp::PrefillShape s = shape(h_q, d_qk, topk);
          s.d_v = std::min<std::int64_t>(512, d_qk);
          const auto& a = port::profile(arch);
          const sp::PrefillPlan p = sp::make_plan(s, a);
          if (!p.ok) {
            EXPECT_FALSE(p.reason.empty());
            continue;
          }
          ++admitted;
          expect_invariants(p, a);
          EXPECT_LE(p.tile_k, std::max<std::int64_t>(16, topk <= 1 ? 16 : 2 * topk)) << "tile larger than topk needs";
        }
  EXPECT_GT(admitted, 300);
}

TEST(SparsePrefillPlan, RefusalsNameTheLimit) {
  // A forced 128-row tile does not fit gfx942's 64 KiB with 16 heads of d_qk 576.
  sp::PrefillOptions o;
  o.force_tile_k = 128;
  const sp::PrefillPlan p = sp::make_plan(shape(64, 576, 2048), port::kGfx942, o);
  ASSERT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("gfx942 capacity 65536 B"), std::string::npos) << p.reason;
  EXPECT_NE(p.reason.find("kv tile 149504 B"), std::string::npos) << p.reason;
  // The same tile fits sm_90.
  EXPECT_TRUE(sp::make_plan(shape(64, 576, 2048), port::kSm90, o).ok);

  sp::PrefillShape bad = shape(64, 580, 128);
  EXPECT_NE(sp::make_plan(bad, port::kGfx950).reason.find("d_qk = 580"), std::string::npos);
  bad = shape(64, 512, 128);
  bad.d_v = 576;
  EXPECT_NE(sp::make_plan(bad, port::kGfx950).reason.find("d_v = 576"), std::string::npos);
  bad = shape(64, 512, 128);
  bad.kv_stride = 516;
  EXPECT_NE(sp::make_plan(bad, port::kGfx950).reason.find("kv row stride 516"), std::string::npos);
  EXPECT_FALSE(sp::can_implement(bad, port::kGfx950));
}

TEST(SparsePrefillPlan, LauncherRefusesBeforeLaunch) {
  sp::PrefillOptions o;
  o.force_tile_k = 128;
  const sp::PrefillPlan p = sp::make_plan(shape(64, 576, 2048), port::kGfx942, o);
  if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason();
  port::Stream stream;
  try {
    sp::launch_sparse_mla_prefill(p, {}, {}, stream);  // null buffers: the plan refusal must come first
    FAIL() << "expected CannotImplement";
  } catch (const kernels::CannotImplement& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("65536"), std::string::npos) << e.what();
  }
}
