// Packed layouts (formats.md §7) and the fn -> fnuz migration (§6): byte and nibble order by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference/formats/recipes.hpp"

using namespace dsv4::formats;

TEST(Packing, Fp4x2ElementZeroInTheLowNibbleOddLength) {
  const std::vector<std::uint8_t> codes = {0x1, 0x2, 0x3, 0xF, 0x8};
  const std::vector<std::uint8_t> packed = pack_fp4x2(codes);
  EXPECT_EQ(packed, (std::vector<std::uint8_t>{0x21, 0xF3, 0x08}));  // last partial byte: high nibble 0
  EXPECT_EQ(unpack_fp4x2(packed, 5), codes);
  EXPECT_THROW(pack_fp4x2(std::vector<std::uint8_t>{0x10}), std::invalid_argument);
  EXPECT_THROW(unpack_fp4x2(packed, 7), std::invalid_argument);
}

TEST(Packing, DeepGemmUe8m0FourPerWordLittleEndianKNotMultipleOf512) {
  // 6 groups (K = 768 with 128-wide groups): word 0 = groups 0..3, word 1 = groups 4,5 and zero padding.
  const std::vector<std::uint8_t> e = {0x7F, 0x80, 0x81, 0x01, 0xFE, 0x02};
  const std::vector<std::int32_t> w = pack_ue8m0(e);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(static_cast<std::uint32_t>(w[0]), 0x0181807Fu);
  EXPECT_EQ(static_cast<std::uint32_t>(w[1]), 0x000002FEu);
  EXPECT_EQ(unpack_ue8m0(w, 6), e);
  // DeepGEMM's formula v0>>23 | v1>>15 | v2>>7 | v3<<1 on the fp32 scales gives the same word.
  const std::vector<float> s = {1.0f, 2.0f, 4.0f, std::ldexp(1.0f, -126)};
  const std::vector<std::uint8_t> b = ue8m0_bytes_from_pow2_scales(s);
  EXPECT_EQ(b, (std::vector<std::uint8_t>{0x7F, 0x80, 0x81, 0x01}));
  EXPECT_THROW(ue8m0_bytes_from_pow2_scales(std::vector<float>{3.0f}), std::invalid_argument);
  EXPECT_THROW(ue8m0_bytes_from_pow2_scales(std::vector<float>{-1.0f}), std::invalid_argument);
}

TEST(Migration, FnToFnuzRewritesNegativeZeroAndFlagsNaN) {
  const std::vector<std::uint8_t> fn = {0x00, 0x80, 0x7E, 0x7F, 0xFF, 0x01, 0x81, 0x07, 0xFE};
  const FnuzMigration m = migrate_fn_to_fnuz(fn);
  EXPECT_EQ(m.codes, (std::vector<std::uint8_t>{0x00, 0x00, 0x7E, 0x7F, 0xFF, 0x01, 0x81, 0x07, 0xFE}));
  EXPECT_EQ(m.nan_indices, (std::vector<std::size_t>{3, 4}));
  // fn(b) == 2 * fnuz(b) for every code kept, so scales double.
  for (std::size_t i = 0; i < fn.size(); ++i) {
    if (fn[i] == 0x7F || fn[i] == 0xFF) continue;
    EXPECT_EQ(decode(Format::e4m3fn, fn[i]) == 0 ? 0.0 : decode(Format::e4m3fn, fn[i]),
              2 * decode(Format::e4m3fnuz, m.codes[i])) << i;
  }
  EXPECT_EQ(migrate_scale_fp32(0.375f), 0.75f);
  EXPECT_EQ(migrate_scale_e8m0(0x7F), 0x80);
  EXPECT_EQ(migrate_scale_e8m0(0xFD), 0xFE);
  EXPECT_EQ(migrate_scale_e8m0(0xFE), 0xFE);  // clamped at 254
  EXPECT_EQ(migrate_scale_e8m0(0xFF), 0xFF);
}
