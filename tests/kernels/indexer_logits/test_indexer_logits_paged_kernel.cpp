// Kernel tests of indexer_logits_paged (ops.md §4.2, issue 7) on this build's backend: the registry runner under
// the op's default oracle policy and an element-wise error-model check of every valid position (k < context_len)
// plus "untouched" for every other position (indexer_test_util.hpp). Caches are built with shuffled
// (non-contiguous) block tables, NaN codes and NaN scales in every unreferenced slot (whole unreferenced blocks and
// the tail of partially filled last blocks), garbage block ids past each batch's last needed block, context lengths
// 0 and 1, next_n 1..4, both fp8 flavours, wave 64 and 32 on sim. The mask_broadcast_heads variant (known-bugs #8)
// is caught when next_n == H and harmless when next_n == 1. Plus plan refusals.
#include <gtest/gtest.h>

#include "kernels/indexer_logits/indexer_logits.hpp"
#include "tests/kernels/indexer_logits/indexer_test_util.hpp"
#include "tests/kernels/kernel_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::kern;
using namespace dsv4::test::idx;
namespace ix = dsv4::kernels::indexer;

namespace {

constexpr const char* kOp = "indexer_logits_paged";

class PagedKernel : public KernelTest {};

// The kernel on a hand-built case of spec s: logits [B·next_n, max_ctx] pre-filled with the sentinel.
Tensor run_paged(const OpCase& c, const PagedSpec& s, const std::string& variant = "default", int repeats = 1) {
  return run_kernel(kOp, c, s.B * s.next_n, s.max_ctx, variant, nullptr, repeats);
}

// Causal decode lengths L_b − next_n + t + 1 for the given per-batch L_b.
std::vector<std::vector<std::int64_t>> causal(const std::vector<std::int64_t>& L, std::int64_t next_n) {
  std::vector<std::vector<std::int64_t>> c;
  for (std::int64_t l : L) {
    c.emplace_back();
    for (std::int64_t t = 0; t < next_n; ++t) c.back().push_back(l - next_n + t + 1);
  }
  return c;
}

}  // namespace

TEST_F(PagedKernel, GeneratedCasesNextN1To4UnderOracleBothWavesBothFlavours) {
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : waves()) {
    use_wave(w);
    for (int next_n : {1, 2, 3, 4}) {
      const char* dt = next_n % 2 ? "e4m3fn" : "e4m3fnuz";
      const Json shape{{"B", 2}, {"next_n", next_n}, {"H", 8}, {"D", next_n <= 2 ? 32 : 64},
                       {"block_kv", 16}, {"max_context_len", 50}, {"dtype", dt}};
      OpCase c = generate(kOp, shape, rng);
      c.attrs["clean_logits"] = false;
      c.attrs["dot"] = "fp32";
      const Checked r = run_and_judge(kOp, c);
      const std::string what = "wave " + std::to_string(w) + " " + shape.dump();
      expect_runner_pass(r, what);
      ASSERT_EQ(r.verdict.outputs.size(), 1u) << what;
      EXPECT_EQ(r.verdict.outputs[0].policy, "error-bound") << what << ": the op registers its error model";
      EXPECT_EQ(r.run.plan.value("wave_size", 0), w) << what;
      EXPECT_EQ(check_paged(r.c, r.run.outputs.at("logits"), what, true, false), 0);
    }
  }
}

TEST_F(PagedKernel, ContextLens0And1PartialBlocksNaNPoisonAndGarbageTableTails) {
  auto rng = dsv4::test::rng_for_current_test();
  // Batch 0: 0 and 1 tokens; batch 1: exactly one block and one more; batch 2: a partial last block (69 = 4·16 + 5)
  // and the full width; batch 3: nothing at all (every table entry garbage).
  PagedSpec s{.B = 4, .next_n = 2, .H = 8, .D = 64, .block_kv = 16, .max_ctx = 70,
              .ctx = {{0, 1}, {16, 17}, {69, 70}, {0, 0}}, .extra_blocks = 3, .extra_table_cols = 2};
  for (DType dt : {DType::F8_E4M3FN, DType::F8_E4M3FNUZ}) {
    s.dt = dt;
    const OpCase c = paged_case(rng, s);
    for (int w : waves()) {
      use_wave(w);
      const std::string what = std::string(dtype_name(dt)) + " wave " + std::to_string(w);
      EXPECT_EQ(check_paged(c, run_paged(c, s), what), 0) << what;
      expect_runner_pass(run_and_judge(kOp, c), what + " (oracle)");
    }
  }
}

TEST_F(PagedKernel, HeadDim128BlockKv64ManyBlocks) {
  auto rng = dsv4::test::rng_for_current_test();
  const PagedSpec s{.B = 2, .next_n = 1, .H = 16, .D = 128, .block_kv = 64, .max_ctx = 200, .ctx = {{200}, {129}},
                    .dt = DType::F8_E4M3FNUZ};
  const OpCase c = paged_case(rng, s);
  EXPECT_EQ(check_paged(c, run_paged(c, s), "D128"), 0);
}

TEST_F(PagedKernel, RerunsAreBitwiseEqual) {
  auto rng = dsv4::test::rng_for_current_test();
  const PagedSpec s{.B = 2, .next_n = 2, .D = 32, .ctx = causal({40, 23}, 2)};
  const OpCase c = paged_case(rng, s);
  const Tensor a = run_paged(c, s);
  const Tensor b = run_paged(c, s, "default", 3);
  EXPECT_EQ(a.to_codes(), b.to_codes());
  EXPECT_EQ(check_paged(c, a, "rerun"), 0);
}

TEST_F(PagedKernel, MaskBroadcastVariantCaughtWhenNextNEqualsHeads) {
  // known-bugs #8: a [next_n, block] mask broadcast against [next_n, H, block] scores masks head h with row h's
  // length. next_n == H == 4 with causal lengths: silently wrong; next_n == 1: identical to the fix.
  auto rng = dsv4::test::rng_for_current_test();
  PagedSpec s{.B = 2, .next_n = 4, .H = 4, .D = 32, .max_ctx = 40, .ctx = causal({40, 21}, 4)};
  const OpCase c = paged_case(rng, s);
  expect_runner_pass(run_and_judge(kOp, c), "default next_n == H");
  const Checked bad = run_and_judge(kOp, c, "mask_broadcast_heads");
  EXPECT_FALSE(bad.verdict.pass) << "the oracle must catch the broadcast mask: " << bad.summary();
  EXPECT_GT(check_paged(c, run_paged(c, s, "mask_broadcast_heads"), "bug", false), 0);
  s.next_n = 1;
  s.ctx = causal({40, 21}, 1);
  const OpCase c1 = paged_case(rng, s);
  expect_runner_pass(run_and_judge(kOp, c1, "mask_broadcast_heads"), "variant with next_n == 1 is exact");
}

TEST_F(PagedKernel, BlockIdOutsideTheCacheIsAnInputError) {
  auto rng = dsv4::test::rng_for_current_test();
  const PagedSpec s{.D = 32, .ctx = {{20}}};
  OpCase c = paged_case(rng, s);
  c.inputs["block_table"].set({0, 1}, -1.0);  // token 16..19 live in table column 1
  try {
    (void)run_paged(c, s);
    FAIL() << "a block id of -1 reached by a row must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("block_table"), std::string::npos) << e.what();
  }
}

TEST_F(PagedKernel, RunnerRefusesBlockKvNotMultipleOf4) {
  auto rng = dsv4::test::rng_for_current_test();
  const PagedSpec s{.D = 32, .block_kv = 6, .ctx = {{11}}};
  const OpCase c = paged_case(rng, s);
  EXPECT_THROW((void)run_paged(c, s), kernels::CannotImplement);
}

TEST(PagedPlan, RefusalsAndNumbers) {
  ix::PagedShape s;
  s.b = 3;
  s.next_n = 2;
  s.h = 64;
  s.d = 128;
  s.block_kv = 64;
  s.num_blocks = 10;
  s.max_blocks = 3;
  s.max_context_len = 190;
  const ix::PagedPlan p = ix::make_paged_plan(s, port::kGfx942);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.grid[0], 6u);
  EXPECT_EQ(p.grid[1], 2u);
  EXPECT_EQ(p.row_stride, 256);
  EXPECT_EQ(p.block_bytes, 64u * 132);
  EXPECT_EQ(p.cache_bytes, 10u * 64 * 132);
  EXPECT_EQ(p.workspace_bytes, 0u);
  s.block_kv = 6;
  auto r = ix::make_paged_plan(s, port::kGfx942);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("block_kv = 6"), std::string::npos) << r.reason;
  s.block_kv = 64;
  s.clean_logits = true;
  EXPECT_FALSE(ix::can_implement(s, port::kGfx942));
  s.clean_logits = false;
  s.h = 128;
  EXPECT_FALSE(ix::can_implement(s, port::kGfx942));  // LDS 64 KiB + 512 > 64 KiB
  EXPECT_TRUE(ix::can_implement(s, port::kGfx950));
  s.h = 64;
  s.d = 96;
  EXPECT_FALSE(ix::can_implement(s, port::kGfx950));
  s.d = 128;
  EXPECT_FALSE(ix::make_paged_plan(s, port::kGfx950, ix::IndexerVariant::ke_off_by_one).ok);
}
