// Kernel tests of per_block_quant_fp8 (issue 7) through the tools' runner path (outputs poisoned, written-check
// on, oracle default policy = exact codes and scales vs the float64 reference recipes): the op's default shapes x
// scale layouts (fp32 row_major / mn_major, packed UE8M0) x fp8 flavours on wave 64 and wave 32 (sim), every
// implemented recipe, partial edge tiles (N or K not a multiple of the tile), special values (NaN / Inf tiles,
// all-equal, all-zero, below-floor and huge tiles, mixed with ordinary random tiles), the arch rule (gfx942 ->
// e4m3fnuz, gfx950 / sm_90 -> e4m3fn) through RunOptions.arch, refusals before launch, and the
// wave64_lds_reduction bug-zoo variant (caught on wave 32, harmless on wave 64, while the default passes both).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "kernels/per_block_quant_fp8/per_block_quant_fp8.hpp"
#include "tests/kernels/per_block_quant_fp8/arch_case.hpp"
#include "tests/kernels/quant_kernel_checks.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::kern;
namespace bq = dsv4::kernels::block_quant;

namespace {

constexpr const char* kOp = "per_block_quant_fp8";

class BlockQuantKernel : public KernelTest {};

OpCase block_case(Tensor w, Json attrs) { return one_input_case("w", std::move(w), std::move(attrs)); }

void expect_pass(const Checked& r, const std::string& what) { expect_quant_pass(r, what); }

const auto& kRecipes = kQuantRecipes;

// [N, K] fp32 with tiles of edge `gs` holding special contents by tile index (row-major over tiles), ordinary
// random data elsewhere: 0 all-equal, 1 all-zero, 2 below the amax floors, 3 huge (near fp32 max), 4 one NaN,
// 5 one +Inf, 6 values at 448·2^k boundaries; tiles >= 7 random N(0,1)·2^U(-6,6).
Tensor special_tiles(std::int64_t N, std::int64_t K, std::int64_t gs, std::mt19937_64& rng) {
  Tensor w = Tensor::empty(DType::F32, {N, K});
  std::normal_distribution<double> nd;
  std::uniform_int_distribution<int> ex(-6, 6);
  const std::int64_t KB = (K + gs - 1) / gs;
  std::vector<double> tile_mag(static_cast<std::size_t>(((N + gs - 1) / gs) * KB));
  for (auto& m : tile_mag) m = std::ldexp(1.0, ex(rng));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t k = 0; k < K; ++k) {
      const std::int64_t t = (n / gs) * KB + k / gs;
      const std::int64_t e = (n % gs) * gs + k % gs;  // index inside the tile
      double v = nd(rng) * tile_mag[static_cast<std::size_t>(t)];
      switch (t) {
        case 0: v = -2.75; break;
        case 1: v = 0.0; break;
        case 2: v = (e % 2 ? -1.0 : 1.0) * 1e-12 * (1 + e % 5); break;
        case 3: v = (e % 3 ? 1.0 : -1.0) * 3e38 / (1 + e % 7); break;
        case 4: v = e == 5 ? std::numeric_limits<double>::quiet_NaN() : v; break;
        case 5: v = e == 7 ? std::numeric_limits<double>::infinity() : v; break;
        case 6: v = (e % 2 ? -1.0 : 1.0) * 448.0 * std::ldexp(1.0, static_cast<int>(e % 9) - 4) / (1 + e % 4); break;
        default: break;
      }
      w.set({n, k}, v);
    }
  return w;
}

}  // namespace

TEST_F(BlockQuantKernel, DefaultShapesLayoutsFlavoursBothWaveSizes) {
  auto rng = dsv4::test::rng_for_current_test();
  const std::pair<const char*, const char*> layouts[] = {
      {"row_major", "plain-fp32"}, {"mn_major", "dsv4-act"}, {"packed_ue8m0", "dg-ceil"}};
  int cases = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int w : waves()) {
    use_wave(w);
    for (const Json& s : descriptor(kOp).default_shapes)
      for (const auto& [layout, recipe] : layouts)
        for (const char* f : {"e4m3fn", "e4m3fnuz"}) {
          OpCase c = generate(kOp, s, rng);
          c.attrs = {{"scale_layout", layout}, {"scale_recipe", recipe}, {"fp8_dtype", f}};
          const Checked r = run_and_judge(kOp, c);
          expect_pass(r, "wave " + std::to_string(w) + " " + s.dump() + " " + layout + " " + recipe + " " + f);
          EXPECT_EQ(r.run.plan.value("wave_size", 0), w);
          ++cases;
        }
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ per_block ] %d cases in %.3f s (reference + kernel + oracle)\n", cases, sec);
}

TEST_F(BlockQuantKernel, EveryImplementedRecipeBothFlavoursPartialTiles) {
  // 40 x 100 with 32-wide tiles: 2 x 4 tiles, the last row and column of tiles partial (8 rows, 4 columns).
  auto rng = dsv4::test::rng_for_current_test();
  for (const char* recipe : kRecipes)
    for (const char* f : {"e4m3fn", "e4m3fnuz"}) {
      OpCase c = generate(kOp, Json{{"N", 40}, {"K", 100}, {"dtype", "bf16"}}, rng);
      c.attrs = {{"scale_recipe", recipe}, {"fp8_dtype", f}, {"group_size", 32}};
      expect_pass(run_and_judge(kOp, c), std::string(recipe) + " " + f);
    }
}

TEST_F(BlockQuantKernel, SpecialValueTilesEveryRecipeBothWaveSizes) {
  // 50 x 70 with 16-wide tiles: 4 x 5 tiles (partial last row / column), tiles 0..6 special, the rest random.
  auto rng = dsv4::test::rng_for_current_test();
  const Tensor w = special_tiles(50, 70, 16, rng);
  for (int wv : waves()) {
    use_wave(wv);
    for (const char* recipe : kRecipes)
      for (const char* f : {"e4m3fn", "e4m3fnuz"})
        expect_pass(run_and_judge(kOp, block_case(w, {{"scale_recipe", recipe}, {"fp8_dtype", f}, {"group_size", 16}})),
                    std::string("special tiles ") + recipe + " " + f + " wave " + std::to_string(wv));
  }
}

TEST_F(BlockQuantKernel, PackedLayoutEdgeTilesAndOtherTileEdges) {
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : waves()) {
    use_wave(w);
    // (N, K, tile): K-blocks 5 (two packed words, second partial), N not a multiple of 4 or of the tile, tiny.
    for (auto [n, k, g] : {std::tuple{37, 150, 32}, {9, 130, 64}, {3, 7, 128}, {70, 64, 64}, {33, 257, 16}}) {
      OpCase c = generate(kOp, Json{{"N", n}, {"K", k}, {"dtype", "fp16"}}, rng);
      c.attrs = {{"group_size", g}, {"scale_layout", "packed_ue8m0"}, {"scale_recipe", "v3-triton"}};
      expect_pass(run_and_judge(kOp, c), "N " + std::to_string(n) + " K " + std::to_string(k) + " tile " +
                                             std::to_string(g) + " wave " + std::to_string(w));
      c.attrs = {{"group_size", g}, {"scale_layout", "mn_major"}, {"scale_recipe", "plain-fp32"}};
      expect_pass(run_and_judge(kOp, c), "mn_major N " + std::to_string(n) + " K " + std::to_string(k));
    }
  }
}

TEST_F(BlockQuantKernel, ArchProfilesGfx942FnuzGfx950Ocp) {
  // The runner under each arch profile with that profile's flavour (the op attr carries it, as in a dispatch
  // that follows the platform): gfx942 e4m3fnuz (max 240; 224 for vLLM recipes), gfx950 / sm_90 e4m3fn.
  auto rng = dsv4::test::rng_for_current_test();
  for (auto [arch, f] : {std::pair{"gfx942", "e4m3fnuz"}, {"gfx950", "e4m3fn"}, {"sm_90", "e4m3fn"}})
    for (const char* recipe : {"plain-fp32", "v3-triton"}) {
      OpCase c = generate(kOp, Json{{"N", 20}, {"K", 90}, {"dtype", "bf16"}}, rng);
      c.attrs = {{"scale_recipe", recipe}, {"fp8_dtype", f}, {"group_size", 32}};
      const Checked r = run_and_judge_arch(kOp, c, arch);
      expect_pass(r, std::string(arch) + " " + f + " " + recipe);
      const std::string text = r.run.plan.value("text", std::string());
      EXPECT_NE(text.find(std::string(arch) + " "), std::string::npos) << text;
      EXPECT_NE(text.find(std::string(" ") + f + " "), std::string::npos) << text;
    }
}

TEST(BlockQuantPlan, ArchProfileSelectsFp8FlavourUnlessGiven) {
  bq::BlockQuantShape s;
  s.n = 256;
  s.k = 256;
  EXPECT_EQ(bq::make_block_quant_plan(s, port::kGfx942).fp8, bq::Fp8::e4m3fnuz);
  EXPECT_EQ(bq::make_block_quant_plan(s, port::kGfx950).fp8, bq::Fp8::e4m3fn);
  EXPECT_EQ(bq::make_block_quant_plan(s, port::kSm90).fp8, bq::Fp8::e4m3fn);
  EXPECT_EQ(bq::make_block_quant_plan(s, port::kGfx942).elem_max, 240.f);
  bq::BlockQuantOptions o;
  o.recipe = "v3-triton";
  EXPECT_EQ(bq::make_block_quant_plan(s, port::kGfx942, o).elem_max, 224.f);
  o.fp8 = bq::Fp8::e4m3fn;
  EXPECT_EQ(bq::make_block_quant_plan(s, port::kGfx942, o).fp8, bq::Fp8::e4m3fn);
  const auto p = bq::make_block_quant_plan(s, port::kSm90);
  EXPECT_EQ(p.wave_size, 32);
  EXPECT_EQ(p.waves_per_block, 8);
  EXPECT_EQ(p.items, 4);
  EXPECT_EQ(p.workspace_bytes, 0u);
  EXPECT_LE(p.lds_bytes, p.lds_capacity);
  o = {};
  o.layout = bq::ScaleLayout::packed_ue8m0;
  o.recipe = "dg-ceil";
  s.n = 130;
  s.k = 1000;  // KB = 8: two words per row
  const auto pk = bq::make_block_quant_plan(s, port::kGfx950, o);
  ASSERT_TRUE(pk.ok) << pk.reason;
  EXPECT_EQ(pk.tiles_per_item, 4);
  EXPECT_EQ(pk.items, 2 * 2);
  EXPECT_EQ(pk.scale_ld, 132);
  EXPECT_EQ(pk.scale_bytes, 132u * 2 * 4);
}

TEST(BlockQuantPlan, RefusalsNameTheRule) {
  bq::BlockQuantShape s;
  bq::BlockQuantOptions o;
  o.recipe = "mx-floor";
  auto p = bq::make_block_quant_plan(s, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("mx-floor"), std::string::npos) << p.reason;
  o.recipe = "plain-fp32";
  o.layout = bq::ScaleLayout::packed_ue8m0;
  p = bq::make_block_quant_plan(s, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("power-of-two"), std::string::npos) << p.reason;
  o.layout = bq::ScaleLayout::row_major;
  o.group_size = 2048;
  p = bq::make_block_quant_plan(s, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("1024"), std::string::npos) << p.reason;
  o.group_size = 128;
  o.fp8_max = 300;
  o.fp8 = bq::Fp8::e4m3fnuz;
  EXPECT_FALSE(bq::can_implement(s, port::kGfx950, o));
  o.fp8_max.reset();
  EXPECT_TRUE(bq::can_implement(s, port::kGfx950, o));
}

TEST_F(BlockQuantKernel, RefusedBeforeLaunch) {
  // The launcher refuses a refused plan without touching the (poisoned) outputs.
  bq::BlockQuantShape s;
  s.n = 8;
  s.k = 8;
  bq::BlockQuantOptions o;
  o.group_size = 4096;
  const auto plan = bq::make_block_quant_plan(s, port::device_profile(), o);
  ASSERT_FALSE(plan.ok);
  std::vector<std::uint16_t> host(64, 0x3f80);
  port::DeviceBuffer w = port::DeviceBuffer::from_host<std::uint16_t>(host), q(64), sc(64);
  q.memset(0x5A);
  port::Stream st;
  try {
    bq::launch_per_block_quant_fp8(plan, {w.data(), q.data(), sc.data()}, st);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("group_size = 4096"), std::string::npos) << e.what();
  }
  st.synchronize();
  std::vector<std::uint8_t> back(64);
  q.copy_to_host(back.data(), 64);
  for (auto b : back) EXPECT_EQ(b, 0x5A);
  // Through the runner: an unimplemented recipe is a CannotImplement naming it.
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"N", 4}, {"K", 64}}, rng);
  c.attrs = {{"scale_recipe", "mx-floor"}};
  try {
    (void)run_and_judge(kOp, c);
    FAIL() << "expected CannotImplement";
  } catch (const kernels::CannotImplement& e) {
    EXPECT_NE(std::string(e.what()).find("mx-floor"), std::string::npos) << e.what();
  }
}

TEST_F(BlockQuantKernel, Wave64LdsReductionVariantCaughtOnWave32Only) {
  // One 128 x 128 tile per case; 256 threads take elements tid + 256 i, i.e. row 2i + tid / 128: waves 4..7 of a
  // wave-32 block hold the odd rows only. The amax sits in an odd row, everything else is small.
  const std::int64_t N = 128, K = 256;
  Tensor w = Tensor::empty(DType::BF16, {N, K});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t k = 0; k < K; ++k)
      w.set({n, k}, (n == 37 && k % 128 == 11) ? -96.0 : 0.25 + 0.01 * ((n + k) % 13) - 0.1 * (k % 2));
  const OpCase c = block_case(w, {{"scale_recipe", "plain-fp32"}});
  for (int wv : waves()) {
    use_wave(wv);
    expect_pass(run_and_judge(kOp, c), "default, wave " + std::to_string(wv));
    const Checked bad = run_and_judge(kOp, c, "wave64_lds_reduction");
    if (wv == 32) {
      EXPECT_FALSE(bad.verdict.pass) << "the oracle must catch the wave-64 LDS reduction on wave 32";
      EXPECT_GT(bad.of("w_s").failed, 0) << bad.summary();
      EXPECT_GT(bad.of("w_q").failed, 0) << bad.summary();
    } else {
      EXPECT_TRUE(bad.verdict.pass) << "on wave 64 the 4-wave reduction is complete: " << bad.summary();
    }
  }
}

TEST_F(BlockQuantKernel, RandomScheduleOnSimGivesTheSameExactResult) {
  if (!port::sim::sim_active()) GTEST_SKIP() << "scheduler seeds exist on sim only";
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : {64, 32})
    for (std::uint64_t seed : {1u, 2u}) {
      use_random_schedule(w, seed);
      OpCase c = generate(kOp, Json{{"N", 40}, {"K", 300}, {"dtype", "bf16"}}, rng);
      c.attrs = {{"scale_layout", "packed_ue8m0"}, {"scale_recipe", "dsv4-act"}, {"group_size", 32}};
      expect_pass(run_and_judge(kOp, c), "random schedule wave " + std::to_string(w) + " seed " + std::to_string(seed));
    }
}
