// The compatibility <hip/hip_bf16.h> (kernels/backend/hip/compat) on the host: float -> bf16 equals the reference
// encoder in mode bf16-rne:nan=quiet-keep (HIP's) for every float whose low 16 bits are one of the rounding-critical
// patterns (0, 1, just below / at / just above the tie, all ones) or a seeded random one, under every high half;
// bf16 -> float is exact; the arithmetic rounds the float result once.
#include <gtest/gtest.h>
#include <hip/hip_bf16.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "reference/formats/encode.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace fm = dsv4::formats;

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(HipBf16Compat, FloatToBf16MatchesTheReferenceEncoder) {
  const fm::EncodeMode mode = fm::parse_mode("bf16-rne:nan=quiet-keep");
  auto rng = rng_for_current_test();
  std::uint64_t checked = 0;
  for (std::uint32_t hi = 0; hi < 0x10000u; ++hi) {
    const std::uint32_t lows[] = {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu,
                                  static_cast<std::uint32_t>(rng() & 0xffffu)};
    for (std::uint32_t lo : lows) {
      const std::uint32_t bits = hi << 16 | lo;
      const std::uint32_t want = fm::encode_f32_bits_reference(fm::Format::bf16, mode, bits);
      const std::uint32_t got = __bfloat16_as_ushort(__float2bfloat16(from_bits(bits)));
      ASSERT_EQ(got, want) << std::hex << "float bits 0x" << bits;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 7u * 0x10000u);
}

TEST(HipBf16Compat, Bf16ToFloatIsExactAndArithmeticRoundsOnce) {
  for (std::uint32_t code = 0; code < 0x10000u; ++code) {
    const float f = __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(code)));
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    ASSERT_EQ(u, code << 16);
  }
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even (1.0) wins; 1 + 3 * 2^-8 ties up to 1 + 2^-6.
  const __hip_bfloat16 one = __float2bfloat16(1.0f), eps = __float2bfloat16(0.00390625f);
  EXPECT_EQ(__bfloat16_as_ushort(__hadd(one, eps)), 0x3f80u);
  EXPECT_EQ(__bfloat16_as_ushort(__hadd(__float2bfloat16(1.0078125f), eps)), 0x3f82u);
  EXPECT_EQ(__bfloat162float(__hmul(__float2bfloat16(3.0f), __float2bfloat16(-0.5f))), -1.5f);
  EXPECT_EQ(__bfloat162float(__hsub(__float2bfloat16(2.0f), __float2bfloat16(0.5f))), 1.5f);
  EXPECT_EQ(__bfloat162float(__hfma(__float2bfloat16(2.0f), __float2bfloat16(3.0f), __float2bfloat16(1.0f))), 7.0f);
  const __hip_bfloat162 two = __floats2bfloat162_rn(0.25f, -8.0f);
  EXPECT_EQ(__low2float(two), 0.25f);
  EXPECT_EQ(__high2float(two), -8.0f);
}

}  // namespace
}  // namespace dsv4::test
