// Kernel tests of dequant_fp8 (issue 7): every output element is compared bit for bit with the float64 value
// formats::decode(fp8, code) · decode(scale) (formats::decode(e8m0fnu, byte) for UE8M0: 0x00 = 2^-127, 0xFF = NaN)
// rounded once by reference/tensor (RNE) to bf16 / fp32; NaN must come out NaN. Covers e4m3fn and e4m3fnuz (fnuz
// 0x80 = NaN, fn 0x80 = -0), scale types f32 / e8m0 bytes / packed UE8M0 words, per-token-group and per-block
// granularity, row_major and mn_major layouts, partial groups / blocks, every code x the UE8M0 extremes (0x00,
// 0x01, 0x7F, 0xFE, 0xFF), hand-derived values, wave 64 and 32 (sim), the arch flavour rule, refusals before
// launch, and the shift23 bug-zoo variant (known-bugs #13: differs exactly at 0x00 / 0xFF).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/dequant_fp8/dequant_fp8.hpp"
#include "kernels/port/sim.hpp"
#include "reference/formats/format.hpp"
#include "reference/registry/op_descriptor.hpp"
#include "reference/tensor/tensor.hpp"
#include "tests/kernels/kernel_case.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
namespace dq = dsv4::kernels::dequant;
namespace fm = dsv4::formats;

namespace {

// The shared device fixture: skips without a device, sim options restored and the sim report empty around each test.
using DequantKernel = test::kern::KernelTest;

// Logical scales: value (f32) or byte (UE8M0) per (scale row, group).
struct Scales {
  std::vector<float> f;
  std::vector<std::uint8_t> b;
};

double scale_value(const dq::DequantPlan& p, const Scales& s, std::int64_t i) {
  return p.options.scale_type == dq::ScaleType::f32 ? static_cast<double>(s.f[i])
                                                    : fm::decode(fm::Format::e8m0fnu, s.b[i]);
}

// The device scale buffer of the plan's scale type and layout from logical scales [scale_rows, groups].
std::vector<std::uint8_t> pack_scales(const dq::DequantPlan& p, const Scales& s) {
  std::vector<std::uint8_t> buf(std::max<std::size_t>(4, p.scale_bytes), 0);
  const bool mn = p.options.layout == dq::ScaleLayout::mn_major;
  for (std::int64_t r = 0; r < p.scale_rows; ++r)
    for (std::int64_t g = 0; g < p.groups; ++g) {
      const std::int64_t i = r * p.groups + g;
      switch (p.options.scale_type) {
        case dq::ScaleType::f32: {
          const std::int64_t off = mn ? g * p.scale_ld + r : r * p.scale_ld + g;
          std::memcpy(&buf[static_cast<std::size_t>(off) * 4], &s.f[i], 4);
          break;
        }
        case dq::ScaleType::e8m0: buf[mn ? g * p.scale_ld + r : r * p.scale_ld + g] = s.b[i]; break;
        case dq::ScaleType::packed_ue8m0:
          buf[static_cast<std::size_t>((g / 4) * p.scale_ld + r) * 4 + g % 4] = s.b[i];  // little-endian words
          break;
      }
    }
  return buf;
}

// Runs the kernel; returns the output codes (bf16 or f32 bits).
std::vector<std::uint32_t> run(const dq::DequantPlan& p, const std::vector<std::uint8_t>& codes, const Scales& s) {
  port::DeviceBuffer x(std::max<std::size_t>(1, codes.size())), sc(std::max<std::size_t>(4, p.scale_bytes)),
      y(std::max<std::size_t>(4, p.out_bytes));
  if (!codes.empty()) x.copy_from_host(codes.data(), codes.size());
  const auto sb = pack_scales(p, s);
  sc.copy_from_host(sb.data(), sb.size());
  y.memset(0xA5);
  port::Stream st;
  dq::launch_dequant_fp8(p, {x.data(), sc.data(), y.data()}, st);
  st.synchronize();
  std::vector<std::uint32_t> out(static_cast<std::size_t>(p.elements));
  if (p.options.out == dq::OutType::f32) {
    y.copy_to_host(out.data(), p.out_bytes);
  } else {
    std::vector<std::uint16_t> h(out.size());
    if (!h.empty()) y.copy_to_host(h.data(), p.out_bytes);
    for (std::size_t i = 0; i < h.size(); ++i) out[i] = h[i];
  }
  return out;
}

// Compares every element with the float64 expectation; returns the number of mismatches (first few printed).
std::int64_t mismatches(const dq::DequantPlan& p, const std::vector<std::uint8_t>& codes, const Scales& s,
                        const std::vector<std::uint32_t>& got, const std::string& what) {
  const fm::Format f = p.fp8 == dq::Fp8::e4m3fnuz ? fm::Format::e4m3fnuz : fm::Format::e4m3fn;
  const DType odt = p.options.out == dq::OutType::f32 ? DType::F32 : DType::BF16;
  Tensor one = Tensor::empty(odt, {1});
  const std::int64_t gs = p.options.group_size, K = p.shape.k;
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < p.elements; ++i) {
    const std::int64_t r = i / K, c = i % K;
    const std::int64_t sr = p.options.granularity == dq::Granularity::block ? r / gs : r;
    const double v = fm::decode(f, codes[i]) * scale_value(p, s, sr * p.groups + c / gs);
    bool ok;
    if (std::isnan(v)) {
      one.set_code({0}, got[i]);
      ok = std::isnan(one.get({0}));
    } else {
      one.set({0}, v);
      ok = one.code({0}) == got[i];
    }
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << what << ": element " << i << " code 0x" << std::hex << int(codes[i]) << " expected 0x"
                    << (std::isnan(v) ? 0u : static_cast<unsigned>(one.code({0}))) << " (" << std::dec << v
                    << ") got 0x" << std::hex << got[i] << std::dec << " [" << p.describe() << "]";
  }
  return bad;
}

Scales random_scales(const dq::DequantPlan& p, std::mt19937_64& rng) {
  const auto n = static_cast<std::size_t>(p.scale_rows * p.groups);
  Scales s;
  std::uniform_int_distribution<int> byte(0, 255), ex(-40, 40);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  const std::uint8_t extremes[] = {0x00, 0x01, 0x7F, 0xFE, 0xFF};
  for (std::size_t i = 0; i < n; ++i) {
    s.b.push_back(i < 5 ? extremes[i] : static_cast<std::uint8_t>(byte(rng)));
    float v = static_cast<float>(mant(rng) * std::ldexp(1.0, ex(rng)));
    if (i == 1) v = 0.0f;
    if (i == 2) v = std::numeric_limits<float>::infinity();
    if (i == 3) v = std::numeric_limits<float>::quiet_NaN();
    if (i == 4) v = 1.5e-41f;  // subnormal scale
    s.f.push_back(v);
  }
  return s;
}

}  // namespace

TEST_F(DequantKernel, EveryCodeTimesUe8m0ExtremesBothFlavoursBothOutputs) {
  // Row r holds all 256 codes; its one scale (group 256) is one of the UE8M0 extremes or an ordinary byte.
  const std::uint8_t bytes[] = {0x00, 0x01, 0x7F, 0x80, 0x85, 0xFE, 0xFF};
  const std::int64_t M = 7, K = 256;
  std::vector<std::uint8_t> codes(M * K);
  for (std::int64_t i = 0; i < M * K; ++i) codes[i] = static_cast<std::uint8_t>(i % 256);
  for (auto fp8 : {dq::Fp8::e4m3fn, dq::Fp8::e4m3fnuz})
    for (auto out : {dq::OutType::bf16, dq::OutType::f32})
      for (auto st : {dq::ScaleType::e8m0, dq::ScaleType::packed_ue8m0}) {
        dq::DequantOptions o;
        o.fp8 = fp8;
        o.out = out;
        o.scale_type = st;
        o.layout = st == dq::ScaleType::packed_ue8m0 ? dq::ScaleLayout::mn_major : dq::ScaleLayout::row_major;
        o.group_size = 256;
        const auto p = dq::make_dequant_plan({M, K}, port::device_profile(), o);
        ASSERT_TRUE(p.ok) << p.reason;
        Scales s;
        s.b.assign(bytes, bytes + M);
        const auto got = run(p, codes, s);
        EXPECT_EQ(mismatches(p, codes, s, got, "all codes x extremes"), 0);
      }
}

TEST_F(DequantKernel, HandDerivedValues) {
  // e4m3fn 0x38 = 1.0; 0x7E = 448; 0x80 = -0; e4m3fnuz 0x80 = NaN, 0x40 = 1.0 (bias 8).
  auto one = [&](dq::Fp8 f, dq::OutType out, std::uint8_t code, std::uint8_t byte) {
    dq::DequantOptions o;
    o.fp8 = f;
    o.out = out;
    o.scale_type = dq::ScaleType::e8m0;
    o.group_size = 1;
    const auto p = dq::make_dequant_plan({1, 1}, port::device_profile(), o);
    Scales s;
    s.b = {byte};
    return run(p, {code}, s).at(0);
  };
  using dq::Fp8;
  using dq::OutType;
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::f32, 0x38, 0x00), 0x00400000u);  // 2^-127: fp32 subnormal, not 0
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::bf16, 0x38, 0x00), 0x0040u);
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::f32, 0x38, 0x7F), 0x3F800000u);  // 1.0
  EXPECT_EQ(one(Fp8::e4m3fnuz, OutType::f32, 0x40, 0x7F), 0x3F800000u);  // fnuz 0x40 = 1.0
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::f32, 0x40, 0x7F), 0x40000000u);    // fn 0x40 = 2.0
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::f32, 0x7E, 0xFE), 0x7F800000u);  // 448 * 2^127 overflows fp32: +Inf
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::bf16, 0x7E, 0xFE), 0x7F80u);
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::f32, 0x38, 0xFE), 0x7F000000u);  // 2^127
  EXPECT_EQ(one(Fp8::e4m3fn, OutType::f32, 0x80, 0x7F), 0x80000000u);  // fn 0x80 = -0
  const auto nan_f32 = [](std::uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu) != 0; };
  const auto nan_bf16 = [](std::uint32_t u) { return (u & 0x7F80u) == 0x7F80u && (u & 0x7Fu) != 0; };
  EXPECT_TRUE(nan_f32(one(Fp8::e4m3fn, OutType::f32, 0x38, 0xFF)));     // 0xFF = NaN, not +Inf
  EXPECT_TRUE(nan_bf16(one(Fp8::e4m3fn, OutType::bf16, 0x38, 0xFF)));
  EXPECT_TRUE(nan_f32(one(Fp8::e4m3fnuz, OutType::f32, 0x80, 0x7F)));   // fnuz 0x80 = NaN
  EXPECT_TRUE(nan_bf16(one(Fp8::e4m3fnuz, OutType::bf16, 0x80, 0x7F)));
  EXPECT_TRUE(nan_f32(one(Fp8::e4m3fn, OutType::f32, 0x7F, 0x7F)));     // fn 0x7F = NaN
}

TEST_F(DequantKernel, ScaleTypesGranularitiesLayoutsBothWaveSizes) {
  // M = 37, K = 300, group 32: 10 groups (the last partial; packed: 3 words, the last with 2 bytes), per-block
  // scale rows 2 (the last block partial). Random codes (NaN codes included), random scales with 0x00 / 0xFE /
  // 0xFF and 0 / Inf / NaN / subnormal fp32 scales among them.
  auto rng = dsv4::test::rng_for_current_test();
  const std::int64_t M = 37, K = 300;
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> codes(M * K);
  for (auto& c : codes) c = static_cast<std::uint8_t>(byte(rng));
  int configs = 0;
  for (int w : waves()) {
    use_wave(w);
    for (auto fp8 : {dq::Fp8::e4m3fn, dq::Fp8::e4m3fnuz})
      for (auto st : {dq::ScaleType::f32, dq::ScaleType::e8m0, dq::ScaleType::packed_ue8m0})
        for (auto gran : {dq::Granularity::token_group, dq::Granularity::block})
          for (auto layout : {dq::ScaleLayout::row_major, dq::ScaleLayout::mn_major})
            for (auto out : {dq::OutType::bf16, dq::OutType::f32}) {
              if (st == dq::ScaleType::packed_ue8m0 && layout == dq::ScaleLayout::row_major) continue;
              dq::DequantOptions o;
              o.fp8 = fp8;
              o.scale_type = st;
              o.granularity = gran;
              o.layout = layout;
              o.out = out;
              o.group_size = 32;
              const auto p = dq::make_dequant_plan({M, K}, port::device_profile(), o);
              ASSERT_TRUE(p.ok) << p.reason;
              const Scales s = random_scales(p, rng);
              EXPECT_EQ(mismatches(p, codes, s, run(p, codes, s), p.describe() + " wave " + std::to_string(w)), 0);
              ++configs;
            }
  }
  EXPECT_EQ(configs, static_cast<int>(waves().size()) * 2 * 5 * 2 * 2);
}

TEST(DequantPlan, ArchFlavourAndRefusals) {
  EXPECT_EQ(dq::make_dequant_plan({4, 256}, port::kGfx942).fp8, dq::Fp8::e4m3fnuz);
  EXPECT_EQ(dq::make_dequant_plan({4, 256}, port::kGfx950).fp8, dq::Fp8::e4m3fn);
  EXPECT_EQ(dq::make_dequant_plan({4, 256}, port::kSm90).fp8, dq::Fp8::e4m3fn);
  dq::DequantOptions o;
  o.fp8 = dq::Fp8::e4m3fn;
  EXPECT_EQ(dq::make_dequant_plan({4, 256}, port::kGfx942, o).fp8, dq::Fp8::e4m3fn);
  o = {};
  o.scale_type = dq::ScaleType::packed_ue8m0;
  auto p = dq::make_dequant_plan({4, 256}, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("mn_major"), std::string::npos) << p.reason;
  o = {};
  o.group_size = 0;
  p = dq::make_dequant_plan({4, 256}, port::kGfx950, o);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.reason.find("group_size = 0"), std::string::npos) << p.reason;
  o = {};
  o.layout = dq::ScaleLayout::packed_ue8m0;
  EXPECT_FALSE(dq::can_implement({4, 256}, port::kGfx950, o));
  o = {};
  o.granularity = dq::Granularity::block;
  o.layout = dq::ScaleLayout::mn_major;
  p = dq::make_dequant_plan({130, 300}, port::kGfx950, o);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.scale_rows, 2);
  EXPECT_EQ(p.groups, 3);
  EXPECT_EQ(p.scale_ld, 4);
  EXPECT_EQ(p.scale_bytes, 4u * 3 * 4);
}

TEST_F(DequantKernel, RefusedBeforeLaunch) {
  dq::DequantOptions o;
  o.group_size = 5000;
  const auto p = dq::make_dequant_plan({2, 8}, port::device_profile(), o);
  ASSERT_FALSE(p.ok);
  port::DeviceBuffer x(16), sc(16), y(32);
  y.memset(0x5A);
  port::Stream st;
  try {
    dq::launch_dequant_fp8(p, {x.data(), sc.data(), y.data()}, st);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("refused before launch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("group_size = 5000"), std::string::npos) << e.what();
  }
  st.synchronize();
  std::vector<std::uint8_t> back(32);
  y.copy_to_host(back.data(), 32);
  for (auto b : back) EXPECT_EQ(b, 0x5A);
}

TEST_F(DequantKernel, Shift23VariantDiffersExactlyAtUe8m0Extremes) {
  // known-bugs #13: byte << 23 equals the exact decode for 0x01..0xFE and is wrong at 0x00 (+0) and 0xFF (+Inf).
  const std::int64_t M = 4, K = 256;
  std::vector<std::uint8_t> codes(M * K);
  for (std::int64_t i = 0; i < M * K; ++i) codes[i] = static_cast<std::uint8_t>((i * 7) % 256);
  for (auto [b, must_differ] : {std::pair{0x00, true}, {0x01, false}, {0x9A, false}, {0xFE, false}, {0xFF, true}}) {
    dq::DequantOptions o;
    o.fp8 = dq::Fp8::e4m3fn;
    o.out = dq::OutType::f32;
    o.scale_type = dq::ScaleType::e8m0;
    o.group_size = 256;
    o.variant = dq::DequantVariant::shift23;
    const auto p = dq::make_dequant_plan({M, K}, port::device_profile(), o);
    Scales s;
    s.b.assign(M, static_cast<std::uint8_t>(b));
    const auto got = run(p, codes, s);
    std::int64_t bad = 0;
    {
      ::testing::ScopedTrace t(__FILE__, __LINE__, "shift23 variant (failures expected at 0x00 / 0xFF)");
      const fm::Format f = fm::Format::e4m3fn;
      Tensor one = Tensor::empty(DType::F32, {1});
      for (std::int64_t i = 0; i < M * K; ++i) {
        const double v = fm::decode(f, codes[i]) * fm::decode(fm::Format::e8m0fnu, s.b[0]);
        if (std::isnan(v)) {
          one.set_code({0}, got[i]);
          bad += !std::isnan(one.get({0}));
        } else {
          one.set({0}, v);
          bad += one.code({0}) != got[i];
        }
      }
    }
    if (must_differ) EXPECT_GT(bad, 0) << "byte 0x" << std::hex << b;
    else EXPECT_EQ(bad, 0) << "byte 0x" << std::hex << b;
  }
}
