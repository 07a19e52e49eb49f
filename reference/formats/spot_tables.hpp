// Hand-derived conversion tables from formats.md §1, §3 and §4 (each row names its source). They are
// constants typed in from the spec, not produced by the encoders, so tests and `dsv4check check` can
// compare both encoders against them.
#pragma once
#include <cstdint>
#include <span>

#include "reference/formats/format.hpp"

namespace dsv4::formats {

struct EncodeSpot {
  Format format;
  const char* mode;        // mode string (parse_mode)
  std::uint32_t f32_bits;  // the float32 input, as bits (so NaN payloads and signs are exact)
  std::uint32_t expected;  // expected code
  const char* source;      // where the expectation comes from
};

struct DecodeSpot {
  Format format;
  std::uint32_t code;
  double expected;  // NaN means "decodes to NaN"; -0.0 is checked by sign
  const char* source;
};

std::span<const EncodeSpot> encode_spots();
std::span<const DecodeSpot> decode_spots();

}  // namespace dsv4::formats
