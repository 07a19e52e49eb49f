// Plan tests of the sparse_mla_decode kernel (pure CPU): workspace size and layout as data (caller-owned,
// get_workspace_size == plan.workspace_bytes, covers every partial the kernels touch), LDS phases against each arch
// profile (an over-budget tiling refused on gfx942 and admitted on gfx950, the reason naming the limit), split
// count rules, and refusal before launch (plan refused, workspace too small) with InputError naming the rule.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/sparse_mla_decode/sparse_mla_decode.hpp"
#include "reference/registry/op_descriptor.hpp"

using namespace dsv4;
using namespace dsv4::kernels::smla;
namespace port = dsv4::port;

namespace {

SmlaShape v4_flash_decode(std::int64_t b, std::int64_t topk, std::int64_t extra) {
  SmlaShape s;
  s.b = b;
  s.s_q = 1;
  s.h_q = 64;
  s.layout = Layout::model1;
  s.topk = topk;
  s.cache = {512, 64, 0};
  s.extra_topk = extra;
  s.extra_cache = {256, 64, 0};
  return s;
}

const port::ArchProfile* const kArchs[] = {&port::kGfx942, &port::kGfx950, &port::kSm90};

}  // namespace

TEST(SparseMlaDecodePlan, WorkspaceIsDataAndCoversEveryPartial) {
  for (const auto* arch : kArchs)
    for (int splits : {1, 3, 8}) {
      const SmlaShape s = v4_flash_decode(5, 128, 512);
      SmlaOptions o;
      o.num_splits = splits;
      const SmlaPlan p = make_plan(s, *arch, o);
      ASSERT_TRUE(p.ok) << p.reason;
      // Hand-derived: 5 tokens x splits x 64 heads partials of 512 fp32, lse after them at a 256-byte boundary.
      const std::size_t parts = 5u * splits * 64u;
      EXPECT_EQ(p.ws_out_bytes, parts * 512 * 4);
      EXPECT_EQ(p.lse_offset % 256, 0u);
      EXPECT_GE(p.lse_offset, p.ws_out_bytes);
      EXPECT_EQ(p.workspace_bytes, p.lse_offset + parts * 4);
      EXPECT_EQ(get_workspace_size(s, *arch, o), p.workspace_bytes);
      EXPECT_EQ(p.num_splits, splits);
      EXPECT_GE(p.chunk * splits, 128 + 512);                 // every position belongs to a split
      EXPECT_LT((p.chunk - 1) * splits, 128 + 512);           // and chunk is the smallest such
      EXPECT_EQ(p.split_grid_x * p.split_grid_y * p.split_grid_z, static_cast<std::int64_t>(splits) * 5 * 4);
    }
}

TEST(SparseMlaDecodePlan, LdsPhasesWithinEachArchAndOverBudgetRefusedPerArch) {
  for (const auto* arch : kArchs) {
    const SmlaPlan p = make_plan(v4_flash_decode(2, 2048, 0), *arch);
    ASSERT_TRUE(p.ok) << p.reason;
    std::size_t sum = 0;
    for (const auto& ph : p.lds_phases())
      if (ph.name.rfind("split: ", 0) == 0 && ph.name != "split: total") sum += ph.bytes;
    EXPECT_EQ(sum, p.lds_split_bytes);
    EXPECT_LE(p.lds_split_bytes, arch->lds_bytes_per_block);
    EXPECT_EQ(p.lds_capacity, arch->lds_bytes_per_block);
  }
  // 32 heads x 576 bf16 q (36 KiB) + 64 keys x 576 bf16 (72 KiB): over gfx942's 64 KiB, within gfx950's 160 KiB.
  SmlaShape s = v4_flash_decode(2, 2048, 0);
  s.layout = Layout::v32;
  SmlaOptions o;
  o.heads_per_group = 32;
  o.key_tile = 64;
  const SmlaPlan p942 = make_plan(s, port::kGfx942, o);
  EXPECT_FALSE(p942.ok);
  EXPECT_NE(p942.reason.find("LDS"), std::string::npos) << p942.reason;
  EXPECT_NE(p942.reason.find("gfx942"), std::string::npos) << p942.reason;
  EXPECT_NE(p942.reason.find("65536"), std::string::npos) << p942.reason;
  EXPECT_FALSE(can_implement(s, port::kGfx942, o));
  EXPECT_EQ(get_workspace_size(s, port::kGfx942, o), 0u);
  const SmlaPlan p950 = make_plan(s, port::kGfx950, o);
  EXPECT_TRUE(p950.ok) << p950.reason;
  EXPECT_EQ(p950.lds_split_bytes, 32u * 576 * 2 + 64u * 576 * 2 + 32u * 64 * 4 + 32u * 3 * 4 + 64u * 2 * 4);
}

TEST(SparseMlaDecodePlan, RefusalsNameTheRule) {
  auto reason = [](SmlaShape s, SmlaOptions o = {}) {
    const SmlaPlan p = make_plan(s, port::kGfx950, o);
    EXPECT_FALSE(p.ok);
    return p.reason;
  };
  SmlaShape s = v4_flash_decode(2, 64, 0);
  SmlaShape bad = s;
  bad.head_dim_v = 256;
  EXPECT_NE(reason(bad).find("head_dim_v"), std::string::npos);
  SmlaOptions o;
  o.num_splits = kMaxSplits + 1;
  EXPECT_NE(reason(s, o).find("num_splits"), std::string::npos);
  o = {};
  o.heads_per_group = 8;
  EXPECT_NE(reason(s, o).find("heads_per_group"), std::string::npos);
  o = {};
  o.key_tile = 12;
  EXPECT_NE(reason(s, o).find("key_tile"), std::string::npos);
  bad = s;
  bad.cache.block_stride = 64 * 584 + 8;  // not a multiple of 16
  EXPECT_NE(reason(bad).find("multiple of 16"), std::string::npos);
  bad = s;
  bad.cache.block_stride = 64 * 584 - 16;  // smaller than a block
  EXPECT_NE(reason(bad).find("block stride"), std::string::npos);
  bad = s;
  bad.b = 70000;
  EXPECT_NE(reason(bad).find("65535"), std::string::npos);
}

TEST(SparseMlaDecodePlan, AutomaticSplitsFillTheMachineWithinUsefulRange) {
  for (const auto* arch : kArchs)
    for (std::int64_t b : {1, 8, 64})
      for (std::int64_t topk : {512, 2048}) {
        const SmlaPlan p = make_plan(v4_flash_decode(b, topk, 0), *arch);
        ASSERT_TRUE(p.ok) << p.reason;
        EXPECT_GE(p.num_splits, 1);
        EXPECT_LE(p.num_splits, (topk + p.key_tile - 1) / p.key_tile);
        if (b == 1) EXPECT_GT(p.num_splits, 1) << "one token must be split over the machine";
      }
  // A single key tile needs no split.
  EXPECT_EQ(make_plan(v4_flash_decode(1, 16, 0), port::kGfx950).num_splits, 1);
}

TEST(SparseMlaDecodePlan, LaunchRefusesBeforeLaunch) {
  if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason();
  SmlaShape s = v4_flash_decode(2, 64, 0);
  SmlaOptions o;
  o.key_tile = 12;
  const SmlaPlan refused = make_plan(s, port::kGfx950, o);
  SmlaBuffers io;
  try {
    port::Stream st;
    launch_sparse_mla_decode(refused, io, nullptr, 0, st);
    FAIL() << "a refused plan launched";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("key_tile"), std::string::npos) << e.what();
  }
  const SmlaPlan ok = make_plan(s, port::kGfx950);
  ASSERT_TRUE(ok.ok);
  int dummy = 0;
  try {
    port::Stream st;
    launch_sparse_mla_decode(ok, io, &dummy, ok.workspace_bytes - 1, st);
    FAIL() << "a launch with a short workspace went ahead";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("get_workspace_size"), std::string::npos) << e.what();
  }
}
