// Kernel tests of kv_cache_write (issue 7) through the tools' runner path: the runner copies the caller's cache in
// (unreferenced slots poisoned with NaN bytes by the generator, or a position-dependent byte pattern here) and every
// logical byte back out, so the exact default policy compares written slots AND untouched bytes against the
// reference. Covered: default shapes x both layouts x recipes x fp8 flavours on wave 64 and 32 (sim), slot -1 and
// out-of-order slots with an independent check (untouched slots byte-equal to the input; written slots dequantize
// within the error model's round-trip bound), edge tiles (zeros, below the 1e-4 floors, 448*2^k boundaries), fp32
// input with int32 slots, refusals before launch (plan and runner), the python_negative_slot variant (caught), and
// random sim schedules.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "kernels/kv_cache_write/kv_cache_write.hpp"
#include "reference/ops/common/kv_cache_gen.hpp"
#include "reference/ops/common/kv_cache_layout.hpp"
#include "tests/kernels/kernel_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::test::kern;
namespace kw = dsv4::kernels::kvw;

namespace {

constexpr const char* kOp = "kv_cache_write";

class KvWriteKernel : public KernelTest {};

void expect_pass(const Checked& r, const std::string& what) {
  EXPECT_TRUE(r.verdict.pass) << what << ": " << r.summary();
  EXPECT_TRUE(r.run.plan.value("block_padding_untouched", false)) << what << ": block padding bytes changed";
}

// A cache whose every byte holds a position-dependent pattern (distinct neighbours, includes 0xA5 and 0xFF).
Tensor patterned_cache(kv::CacheLayout l, std::int64_t nb, std::int64_t bs) {
  Tensor c = kv::alloc_cache(l, nb, bs);
  std::uint8_t* b = kv::cache_base(c);
  const std::size_t n = c.storage_bytes();
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>((i * 37 + 11) & 0xFF);
  return c;
}

Tensor slot_tensor(DType t, const std::vector<std::int64_t>& s) {
  Tensor x = Tensor::empty(t, {static_cast<std::int64_t>(s.size())});
  for (std::size_t i = 0; i < s.size(); ++i)
    x.set_code({static_cast<std::int64_t>(i)},
               static_cast<std::uint64_t>(s[i]) & (t == DType::I32 ? 0xFFFFFFFFull : ~0ull));
  return x;
}

OpCase kv_case(Tensor kv, Tensor slots, Tensor cache, kv::CacheLayout l, const std::string& recipe,
               const std::string& fp8 = "e4m3fn") {
  OpCase c;
  c.inputs["kv"] = std::move(kv);
  c.inputs["slot_mapping"] = std::move(slots);
  c.inputs["k_cache"] = std::move(cache);
  c.attrs = {{"cache_layout", kv::cache_layout_name(l)}, {"scale_recipe", recipe}, {"fp8_format", fp8}};
  return c;
}

std::vector<std::string> recipes_for(kv::CacheLayout l) {
  if (l == kv::CacheLayout::V32_FP8Sparse) return {"flashmla-kv-test", "vllm-v4-kv", "plain-fp32"};
  return {"flashmla-kv-test", "vllm-v4-kv"};
}

}  // namespace

TEST_F(KvWriteKernel, DefaultShapesBothLayoutsRecipesFlavoursBothWaveSizes) {
  auto rng = dsv4::test::rng_for_current_test();
  int cases = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int w : waves()) {
    use_wave(w);
    for (const Json& s : descriptor(kOp).default_shapes) {
      for (const char* f : {"e4m3fn", "e4m3fnuz"}) {
        OpCase c = generate(kOp, s, rng);
        const auto l = *kv::parse_cache_layout(c.attrs.at("cache_layout").get<std::string>());
        for (const std::string& recipe : recipes_for(l)) {
          if (recipe == "flashmla-kv-test" && std::string(f) == "e4m3fnuz") continue;  // defined for e4m3fn only
          c.attrs["scale_recipe"] = recipe;
          c.attrs["fp8_format"] = f;
          const Checked r = run_and_judge(kOp, c);
          expect_pass(r, "wave " + std::to_string(w) + " " + s.dump() + " " + recipe + " " + f);
          EXPECT_EQ(r.run.plan.value("wave_size", 0), w);
          ++cases;
        }
      }
    }
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ kv_cache_write ] %d cases in %.3f s (reference + kernel + oracle)\n", cases, sec);
}

TEST_F(KvWriteKernel, SlotMinusOneAndOutOfOrderSlotsTouchNothingElse) {
  auto rng = dsv4::test::rng_for_current_test();
  std::normal_distribution<double> nd(0.0, 1.0);
  for (auto l : {kv::CacheLayout::V32_FP8Sparse, kv::CacheLayout::MODEL1_FP8Sparse}) {
    const kv::LayoutInfo& li = kv::layout_info(l);
    const std::int64_t nb = 4, bs = 3;  // 12 slots
    const std::vector<std::int64_t> slots = {7, -1, 0, 11, -1, 5, 2, -1};
    Tensor rows = Tensor::empty(DType::BF16, {static_cast<std::int64_t>(slots.size()), li.d_qk});
    for (std::int64_t i = 0; i < rows.size(0); ++i)
      for (std::int64_t d = 0; d < li.d_qk; ++d) rows.set({i, d}, nd(rng) * (d % 64 == 3 ? 40.0 : 1.0) * (1 + i));
    const Tensor cache = patterned_cache(l, nb, bs);
    for (int w : waves()) {
      use_wave(w);
      for (DType st : {DType::I64, DType::I32}) {
        const Checked r = run_and_judge(kOp, kv_case(rows, slot_tensor(st, slots), cache, l, "vllm-v4-kv"));
        expect_pass(r, std::string(kv::cache_layout_name(l)) + " wave " + std::to_string(w));
        // Independent of the reference: untouched slots keep the input bytes; written slots round-trip.
        const Tensor& out = r.run.outputs.at("k_cache");
        const kv::CacheView in_view = kv::cache_view(kOp, "k_cache", cache, l);
        const kv::CacheView out_view = kv::cache_view(kOp, "k_cache", out, l);
        std::vector<std::int64_t> row_of(nb * bs, -1);
        for (std::size_t i = 0; i < slots.size(); ++i)
          if (slots[i] >= 0) row_of[slots[i]] = static_cast<std::int64_t>(i);
        for (std::int64_t s = 0; s < nb * bs; ++s) {
          const std::int64_t blk = s / bs, t = s % bs;
          auto bytes_equal = [&](std::int64_t off, std::int64_t n) {
            return std::memcmp(in_view.base + blk * in_view.block_stride + off,
                               out_view.base + blk * out_view.block_stride + off, static_cast<std::size_t>(n)) == 0;
          };
          const bool same = bytes_equal(kv::nope_offset(l, bs, t), li.d_nope) &&
                            bytes_equal(kv::scale_offset(l, bs, t), l == kv::CacheLayout::V32_FP8Sparse ? 16 : 8) &&
                            bytes_equal(kv::rope_offset(l, bs, t), 2 * li.d_rope);
          if (row_of[s] < 0) {
            EXPECT_TRUE(same) << "slot " << s << " is not in slot_mapping but its bytes changed";
            continue;
          }
          std::vector<double> deq(li.d_qk);
          kv::dequantize_slot(out_view, s, {}, deq.data());
          for (int d = 0; d < li.d_qk; ++d) {
            const double x = rows.get({row_of[s], d});
            if (d >= li.d_nope) {
              EXPECT_EQ(deq[d], x) << "RoPE slot " << s << " d " << d;
            } else {
              // error_model.md round trip: |x - deq| <= max(|x| 2^-4, scale 2^-10); scale <= 2 amax / 224.
              double amax = 0;
              for (int k = 0; k < li.tile; ++k)
                amax = std::max(amax, std::fabs(rows.get({row_of[s], d / li.tile * li.tile + k})));
              EXPECT_LE(std::fabs(x - deq[d]), std::max(std::fabs(x) / 16, std::max(amax, 1e-4) / 112 / 1024))
                  << "slot " << s << " d " << d;
            }
          }
        }
        // A cache padding byte between MODEL1 blocks is not in the logical view: the runner reports it.
        EXPECT_TRUE(r.run.plan.value("block_padding_untouched", false));
      }
    }
  }
}

TEST_F(KvWriteKernel, EdgeTilesZerosFloorsAndPowerOfTwoBoundaries) {
  for (auto l : {kv::CacheLayout::V32_FP8Sparse, kv::CacheLayout::MODEL1_FP8Sparse}) {
    const kv::LayoutInfo& li = kv::layout_info(l);
    const std::int64_t n = 5;
    Tensor rows = Tensor::empty(DType::F32, {n, li.d_qk});
    for (std::int64_t d = 0; d < li.d_qk; ++d) {
      const int tile = static_cast<int>(d / li.tile);
      rows.set({0, d}, 0.0);                                                        // all zero: the floor scale
      rows.set({1, d}, (d % 2 ? -1.0 : 1.0) * 3e-7 * (1 + d % 5));                  // amax below both floors
      rows.set({2, d}, d % li.tile == 7 ? 448.0 * std::ldexp(1.0, tile - 3) : 0.5);  // amax exactly 448 * 2^k
      rows.set({3, d}, d % li.tile == 9 ? std::nextafter(448.0f * std::ldexp(1.0f, tile - 2), 1e30f) : -0.25);
      rows.set({4, d}, (d % 3 ? 1.0 : -1.0) * 1e30 / (1 + d % 7));                 // huge values
    }
    const Tensor slots = slot_tensor(DType::I64, {4, 0, 2, 1, 3});
    for (const std::string& recipe : recipes_for(l))
      for (const char* f : {"e4m3fn", "e4m3fnuz"}) {
        if (recipe == "flashmla-kv-test" && std::string(f) == "e4m3fnuz") continue;
        expect_pass(run_and_judge(kOp, kv_case(rows, slots, kv::alloc_cache(l, 2, 3), l, recipe, f)),
                    std::string(kv::cache_layout_name(l)) + " edge tiles " + recipe + " " + f);
      }
  }
}

TEST_F(KvWriteKernel, PythonNegativeSlotVariantIsCaught) {
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : waves()) {
    use_wave(w);
    OpCase c = generate(kOp, Json{{"n_tokens", 6}, {"d_qk", 512}, {"block_size", 4}, {"num_blocks", 3}}, rng);
    c.inputs["slot_mapping"] = slot_tensor(DType::I64, {3, -1, 0, 9, -1, 4});  // the last slot (11) is not written
    expect_pass(run_and_judge(kOp, c), "default");
    const Checked bad = run_and_judge(kOp, c, "python_negative_slot");
    EXPECT_FALSE(bad.verdict.pass) << "slot -1 written into the last slot must be caught: " << bad.summary();
    EXPECT_GT(bad.of("k_cache").failed, 0);
  }
}

TEST_F(KvWriteKernel, RandomScheduleOnSimGivesTheSameExactResult) {
  if (!port::sim::sim_active()) GTEST_SKIP() << "scheduler seeds exist on sim only";
  auto rng = dsv4::test::rng_for_current_test();
  for (int w : {64, 32})
    for (std::uint64_t seed : {1u, 2u}) {
      use_random_schedule(w, seed);
      OpCase c = generate(kOp, Json{{"n_tokens", 10}, {"d_qk", 576}, {"block_size", 4}, {"num_blocks", 3}}, rng);
      expect_pass(run_and_judge(kOp, c), "random schedule wave " + std::to_string(w) + " seed " + std::to_string(seed));
    }
}

TEST_F(KvWriteKernel, RunnerRefusesDuplicateSlotsAndUnalignedBlockStride) {
  auto rng = dsv4::test::rng_for_current_test();
  OpCase c = generate(kOp, Json{{"n_tokens", 4}, {"d_qk", 512}, {"block_size", 4}, {"num_blocks", 2}}, rng);
  c.inputs["slot_mapping"] = slot_tensor(DType::I64, {1, 5, 1, -1});
  try {
    (void)run_and_judge(kOp, c);
    FAIL() << "expected CannotImplement for duplicate slots";
  } catch (const kernels::CannotImplement& e) {
    EXPECT_NE(std::string(e.what()).find("repeats an earlier slot"), std::string::npos) << e.what();
  }
  // V32 cache whose blocks are 658 bytes apart (valid for the reference, not 4-byte aligned for the kernel).
  const std::int64_t nb = 2, bs = 1;
  Tensor raw = Tensor::empty(DType::U8, {nb * 658});
  for (std::int64_t i = 0; i < raw.numel(); ++i) raw.set_code_linear(i, static_cast<std::uint64_t>(i % 251));
  Tensor cache = raw.as_strided({nb, bs, 1, 656}, {658, 656, 656, 1}, 0);
  Tensor rows = Tensor::empty(DType::BF16, {1, 576});
  for (std::int64_t d = 0; d < 576; ++d) rows.set({0, d}, 0.01 * (d % 17) - 0.05);
  try {
    (void)run_and_judge(kOp, kv_case(rows, slot_tensor(DType::I64, {1}), cache, kv::CacheLayout::V32_FP8Sparse,
                                     "vllm-v4-kv"));
    FAIL() << "expected CannotImplement for a block stride of 658";
  } catch (const kernels::CannotImplement& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4"), std::string::npos) << e.what();
  }
}

TEST(KvWritePlan, RefusalsNameTheRuleAndTheLauncherRefusesBeforeLaunch) {
  kw::KvWriteShape s;
  s.layout = kw::Layout::model1;
  s.n_tokens = 4;
  s.num_blocks = 2;
  s.block_size = 64;
  kw::KvWriteOptions o;
  EXPECT_TRUE(kw::can_implement(s, port::kGfx950, o));
  const kw::KvWritePlan ok = kw::make_kv_write_plan(s, port::kGfx942, o);
  EXPECT_EQ(ok.block_stride, 64 * 584 / 576 * 576 + (64 * 584 % 576 ? 576 : 0));  // FlashMLA padding to 576
  EXPECT_EQ(ok.quads_per_tile, 16);
  EXPECT_EQ(ok.lds_bytes, 0u);
  EXPECT_EQ(ok.workspace_bytes, 0u);
  o.recipe = kw::Recipe::plain_fp32;
  auto p = kw::make_kv_write_plan(s, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("UE8M0"), std::string::npos) << p.reason;
  o.recipe = kw::Recipe::flashmla_kv_test;
  o.fp8 = kw::Fp8::e4m3fnuz;
  p = kw::make_kv_write_plan(s, port::kGfx942, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("e4m3fn only"), std::string::npos) << p.reason;
  o = {};
  o.wave_size = 16;
  p = kw::make_kv_write_plan(s, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("wave size 16"), std::string::npos) << p.reason;
  o.wave_size = 0;
  s.block_stride = 64 * 584 - 4;
  p = kw::make_kv_write_plan(s, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("below"), std::string::npos) << p.reason;
  // The launcher refuses a refused plan before touching the device (null pointers are never dereferenced).
  if (!port::device_available()) GTEST_SKIP() << "launcher part: " << port::device_unavailable_reason();
  port::Stream stream;
  try {
    kw::launch_kv_cache_write(p, {}, stream);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("below"), std::string::npos) << e.what();
  }
}
