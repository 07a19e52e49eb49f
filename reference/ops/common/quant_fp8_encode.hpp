// fp8 element encode used by the references and generators: RNE on the exact float64 value with
// `rne-satfinite` overflow (formats.md §0: clamp to ±max, Inf -> ±max, NaN -> NaN code). This is the
// element cast of every recipe that clamps x/s to ±fp8_max before the cast (vLLM, DeepSeek); for
// ceil recipes it never saturates by construction. Also the exact UE8M0 (e8m0fnu) byte <-> value maps.
#pragma once
#include <cstdint>

#include "reference/formats/format.hpp"

namespace dsv4::quant {

// fp8 code (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) of x under rne-satfinite; fnuz never yields -0.
std::uint32_t encode_fp8_satfinite(formats::Format f, double x);

// Exact e8m0 decode: 2^(b-127) (0x00 -> 2^-127), 0xFF -> NaN (formats.md §2, e8m0-exact).
double decode_ue8m0(std::uint8_t b);

// The e8m0 byte of an exact power of two 2^e with -127 <= e <= 127; throws std::invalid_argument
// otherwise (a packed UE8M0 scale must be a power of two, formats.md §5 item 7).
std::uint8_t ue8m0_byte_of_pow2(double s);

// True when s is a finite positive exact power of two.
bool is_pow2(double s);

}  // namespace dsv4::quant
