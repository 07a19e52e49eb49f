// Kernel tests of inv_rope_fp8_quant (issue 7) through the tools' runner path (outputs poisoned, written-check on,
// oracle default policy vs the float64 reference, tile map) and, on top, an exact code-by-code check of o_fp8
// (the kernel forms the rotation in float64 from exact products and rounds once to fp32, like the reference, so
// the 1-ulp allowance of the error model is never needed): the op's default shapes x layouts (MN-major fp32,
// packed UE8M0) x fp8 flavours x pairings (interleaved = the V4 site, neox) on wave 64 and 32 (sim), every
// implemented recipe, special values (NaN / Inf in rope and non-rope dims, all-equal and all-zero heads mixed with
// random heads, position 0 and max_pos-1), I32 positions, arch profiles, refusals before launch, and the
// forward_rotation bug-zoo variant.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "kernels/inv_rope_fp8_quant/inv_rope_fp8_quant.hpp"
#include "tests/kernels/per_block_quant_fp8/arch_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::kern;
namespace ir = dsv4::kernels::inv_rope;

namespace {

constexpr const char* kOp = "inv_rope_fp8_quant";

class InvRopeKernel : public KernelTest {};

void expect_pass(const Checked& r, const std::string& what) {
  EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary();
  EXPECT_EQ(code_mismatches(r, "o_fp8"), 0) << what << ": o_fp8 codes differ from the reference";
}

OpCase with_attrs(OpCase c, const Json& extra) {
  for (const auto& [k, v] : extra.items()) c.attrs[k] = v;
  return c;
}

const char* const kRecipes[] = {"plain-fp32", "dsv4-act", "v3-triton", "vllm-v4-invrope",
                                "vllm-v4-kv", "dg-ceil",  "tk-ceil",   "flashmla-kv-test"};

}  // namespace

TEST_F(InvRopeKernel, DefaultShapesLayoutsFlavoursPairingsBothWaveSizes) {
  auto rng = dsv4::test::rng_for_current_test();
  int cases = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int w : waves()) {
    use_wave(w);
    for (const Json& s : descriptor(kOp).default_shapes)
      for (const char* layout : {"mn_major", "packed_ue8m0"})
        for (const char* f : {"e4m3fn", "e4m3fnuz"})
          for (const char* pairing : {"interleaved", "neox"}) {
            const OpCase c = with_attrs(generate(kOp, s, rng),
                                        {{"scale_layout", layout}, {"fp8_dtype", f}, {"pairing", pairing}});
            const Checked r = run_and_judge(kOp, c);
            expect_pass(r, "wave " + std::to_string(w) + " " + s.dump() + " " + layout + " " + f + " " + pairing);
            EXPECT_EQ(r.run.plan.value("wave_size", 0), w);
            ++cases;
          }
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ inv_rope ] %d cases in %.3f s (reference + kernel + oracle)\n", cases, sec);
}

TEST_F(InvRopeKernel, EveryImplementedRecipeBothFlavours) {
  auto rng = dsv4::test::rng_for_current_test();
  for (const char* recipe : kRecipes)
    for (const char* f : {"e4m3fn", "e4m3fnuz"}) {
      const OpCase c = with_attrs(generate(kOp, Json{{"T", 3}, {"H", 4}, {"n_groups", 2}, {"max_pos", 16}}, rng),
                                  {{"scale_recipe", recipe}, {"fp8_dtype", f}});
      expect_pass(run_and_judge(kOp, c), std::string(recipe) + " " + f);
    }
}

TEST_F(InvRopeKernel, SpecialValuesAmongRandomHeads) {
  // T = 6, H = 4, G = 2. Token 0: head 0 all-equal, head 1 all-zero; token 1: NaN at a rope dim (head 0) and at a
  // non-rope dim (head 2); token 2: +Inf at a rope dim (head 1), -Inf in the first group (head 3); token 3:
  // position 0 (identity rotation); token 4: position max_pos - 1; token 5: huge values. Others random.
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"T", 6}, {"H", 4}, {"n_groups", 2}, {"max_pos", 50}}, rng);
  Tensor& o = c.inputs.at("o");
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (std::int64_t d = 0; d < 512; ++d) {
    o.set({0, 0, d}, 1.5);
    o.set({0, 1, d}, 0.0);
    o.set({5, 2, d}, (d % 2 ? -1.0 : 1.0) * 3e38 / (1 + d % 5));
  }
  o.set({1, 0, 450}, nan);
  o.set({1, 2, 17}, nan);
  o.set({2, 1, 501}, inf);
  o.set({2, 3, 3}, -inf);
  Tensor& pos = c.inputs.at("positions");
  pos.set({3}, 0.0);
  pos.set({4}, 49.0);
  for (int w : waves()) {
    use_wave(w);
    for (const char* layout : {"mn_major", "packed_ue8m0"})
      for (const char* f : {"e4m3fn", "e4m3fnuz"})
        for (const char* pairing : {"interleaved", "neox"})
          expect_pass(run_and_judge(kOp, with_attrs(c, {{"scale_layout", layout}, {"fp8_dtype", f}, {"pairing", pairing}})),
                      std::string("special ") + layout + " " + f + " " + pairing + " wave " + std::to_string(w));
  }
}

TEST_F(InvRopeKernel, Int32PositionsOtherGroupSizesAndRopeDims) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"T", 5}, {"H", 2}, {"n_groups", 1}, {"max_pos", 40}}, rng);
  Tensor p32 = Tensor::empty(DType::I32, {5});
  for (std::int64_t t = 0; t < 5; ++t) p32.set({t}, c.inputs.at("positions").get({t}));
  c.inputs["positions"] = p32;
  expect_pass(run_and_judge(kOp, c), "I32 positions");
  // group_size 64 (8 groups per head, mn_major), and group 128 with a 64-dim rope range spanning one group.
  expect_pass(run_and_judge(kOp, with_attrs(c, {{"group_size", 64}})), "group 64");
  expect_pass(run_and_judge(kOp, with_attrs(c, {{"group_size", 256}, {"pairing", "neox"}})), "group 256 neox");
}

TEST_F(InvRopeKernel, ArchProfilesGfx942FnuzGfx950Ocp) {
  auto rng = dsv4::test::rng_for_current_test();
  for (auto [arch, f] : {std::pair{"gfx942", "e4m3fnuz"}, {"gfx950", "e4m3fn"}, {"sm_90", "e4m3fn"}}) {
    const OpCase c = with_attrs(generate(kOp, Json{{"T", 3}, {"H", 4}, {"n_groups", 2}, {"max_pos", 16}}, rng),
                                {{"fp8_dtype", f}, {"scale_layout", "packed_ue8m0"}});
    const Checked r = run_and_judge_arch(kOp, c, arch);
    expect_pass(r, std::string(arch) + " " + f);
    const std::string text = r.run.plan.value("text", std::string());
    EXPECT_NE(text.find(std::string(" ") + f + " "), std::string::npos) << text;
  }
}

TEST(InvRopePlan, FlavourByArchAndRefusalsNameTheRule) {
  ir::InvRopeShape s;
  s.t = 4;
  s.h = 8;
  s.max_pos = 16;
  EXPECT_EQ(ir::make_inv_rope_plan(s, port::kGfx942).fp8, ir::Fp8::e4m3fnuz);
  EXPECT_EQ(ir::make_inv_rope_plan(s, port::kGfx942).elem_max, 224.f);  // vllm-v4-invrope on fnuz
  EXPECT_EQ(ir::make_inv_rope_plan(s, port::kGfx950).fp8, ir::Fp8::e4m3fn);
  const auto ok = ir::make_inv_rope_plan(s, port::kSm90);
  ASSERT_TRUE(ok.ok) << ok.reason;
  EXPECT_EQ(ok.d, 512);
  EXPECT_EQ(ok.scale_cols, 4);
  EXPECT_EQ(ok.scale_bytes, 8u * 4 * 4 * 4);
  auto refused = [&](ir::InvRopeShape sh, ir::InvRopeOptions o, const std::string& needle) {
    const auto p = ir::make_inv_rope_plan(sh, port::kGfx950, o);
    EXPECT_FALSE(p.ok) << needle;
    EXPECT_NE(p.reason.find(needle), std::string::npos) << p.reason;
  };
  ir::InvRopeOptions o;
  o.n_groups = 3;
  refused(s, o, "n_groups = 3");
  o = {};
  o.rope_dim = 63;
  refused(s, o, "rope_dim = 63");
  o = {};
  o.layout = ir::ScaleLayout::row_major;
  refused(s, o, "row_major");
  o = {};
  o.layout = ir::ScaleLayout::packed_ue8m0;
  o.group_size = 64;
  refused(s, o, "4·group_size");
  o = {};
  o.recipe = "mx-floor";
  refused(s, o, "mx-floor");
  o = {};
  o.recipe = "plain-fp32";
  o.layout = ir::ScaleLayout::packed_ue8m0;
  refused(s, o, "power-of-two");
  EXPECT_FALSE(ir::parse_pairing("gptj-first64").has_value());
}

TEST_F(InvRopeKernel, RefusedBeforeLaunch) {
  // A refused plan: the launcher throws before any launch; the outputs keep their poison.
  ir::InvRopeShape s;
  s.t = 2;
  s.h = 3;  // not divisible by n_groups = 8
  s.max_pos = 4;
  const auto plan = ir::make_inv_rope_plan(s, port::device_profile());
  ASSERT_FALSE(plan.ok);
  port::DeviceBuffer o(2 * 3 * 512 * 2), pos(16), cs(4 * 64 * 4), q(3072), sc(64);
  q.memset(0x5A);
  port::Stream st;
  try {
    ir::launch_inv_rope_fp8_quant(plan, {o.data(), pos.data(), static_cast<const float*>(cs.data()), q.data(), sc.data()}, st);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
  }
  st.synchronize();
  std::vector<std::uint8_t> back(3072);
  q.copy_to_host(back.data(), back.size());
  for (auto b : back) ASSERT_EQ(b, 0x5A);
  // The runner refuses an out-of-range position before launch (InputError naming the argument).
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"T", 2}, {"H", 2}, {"n_groups", 1}, {"max_pos", 8}}, rng);
  validate_case(descriptor(kOp), c);  // fills the default attrs
  c.inputs.at("positions").set({1}, 8.0);
  Outputs outs;
  outs["o_fp8"] = Tensor::empty(DType::F8_E4M3FN, {2, 1, 1024});
  outs["o_scale"] = Tensor::empty(DType::F32, {1, 4, 8});
  try {
    (void)kernels::KernelRegistry::instance().find(kOp)->run(c, outs, kernels::RunOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'positions'[1] = 8"), std::string::npos) << e.what();
  }
}

TEST_F(InvRopeKernel, ForwardRotationVariantIsCaught) {
  auto rng = dsv4::test::rng_for_current_test();
  const OpCase c = generate(kOp, Json{{"T", 4}, {"H", 2}, {"n_groups", 1}, {"max_pos", 64}}, rng);
  for (int w : waves()) {
    use_wave(w);
    const Checked bad = run_and_judge(kOp, c, "forward_rotation");
    EXPECT_FALSE(bad.verdict.pass) << "forward rotation must fail, wave " << w;
    EXPECT_GT(code_mismatches(bad, "o_fp8"), 0);
  }
}

TEST_F(InvRopeKernel, RandomScheduleOnSimGivesTheSameExactResult) {
  if (!port::sim::sim_active()) GTEST_SKIP() << "scheduler seeds exist on sim only";
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : {64, 32}) {
    use_random_schedule(w, 3);
    const OpCase c = with_attrs(generate(kOp, Json{{"T", 5}, {"H", 4}, {"n_groups", 2}, {"max_pos", 32}}, rng),
                                {{"scale_layout", "packed_ue8m0"}});
    expect_pass(run_and_judge(kOp, c), "random schedule wave " + std::to_string(w));
  }
}
