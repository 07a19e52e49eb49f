// Both encoders (reference encode() and FastEncoder) against the hand-derived tables of formats.md
// §3-§4 (reference/formats/spot_tables.cpp), and decode against the §1 table.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "reference/formats/encode.hpp"
#include "reference/formats/spot_tables.hpp"

using namespace dsv4::formats;

TEST(EncodeSpots, ReferenceEncoderMatchesHandTables) {
  ASSERT_GT(encode_spots().size(), 300u);
  for (const EncodeSpot& s : encode_spots()) {
    EXPECT_EQ(encode_f32_bits_reference(s.format, parse_mode(s.mode), s.f32_bits), s.expected)
        << name(s.format) << " mode " << s.mode << " input bits 0x" << std::hex << s.f32_bits << " (" << s.source << ")";
  }
}

TEST(EncodeSpots, FastEncoderMatchesHandTables) {
  for (const EncodeSpot& s : encode_spots()) {
    const FastEncoder enc(s.format, parse_mode(s.mode));
    EXPECT_EQ(enc.from_bits(s.f32_bits), s.expected)
        << name(s.format) << " mode " << s.mode << " input bits 0x" << std::hex << s.f32_bits << " (" << s.source << ")";
  }
}

TEST(DecodeSpots, MatchHandTable) {
  for (const DecodeSpot& s : decode_spots()) {
    const double v = decode(s.format, s.code);
    if (std::isnan(s.expected)) {
      EXPECT_TRUE(std::isnan(v)) << name(s.format) << " 0x" << std::hex << s.code;
    } else {
      EXPECT_EQ(v, s.expected) << name(s.format) << " 0x" << std::hex << s.code << " (" << s.source << ")";
      EXPECT_EQ(std::signbit(v), std::signbit(s.expected)) << name(s.format) << " 0x" << std::hex << s.code;
    }
  }
}

TEST(EncodeSpots, TorchOnFloat64RoundsToFloat32First) {
  // 464 + 2^-20 is above the 464 tie in float64 but rounds to 464.0f first: c10 then gives 0x7E,
  // while a direct float64 RNE (ml_dtypes, rne-nonsat) gives 0x7F.
  const double x = 464.0 + std::ldexp(1.0, -20);
  EXPECT_EQ(encode(Format::e4m3fn, parse_mode("torch"), x), 0x7Eu);
  EXPECT_EQ(encode(Format::e4m3fn, parse_mode("rne-nonsat"), x), 0x7Fu);
  EXPECT_EQ(encode(Format::e4m3fn, parse_mode("ml_dtypes"), x), 0x7Fu);
}
