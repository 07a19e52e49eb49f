// Round-to-nearest-even of a float64 straight to a bf16 or fp16 code with bit operations: the fast twin
// of encode_ieee_rne (rne.hpp), which stays the definition. Same results for every double: one
// rounding (no detour through float32), ties to even, overflow to ±Inf, NaN to the quiet NaN with the
// sign kept (bf16 0x7FC0|s, fp16 0x7E00|s), -0 kept. tests/reference/formats/test_rne_fast.cpp checks
// every code, every midpoint between neighbours and its two float64 neighbours against rne.hpp.
// Invariant: needs the default floating-point environment (round-to-nearest, no flush-to-zero), as
// every float64 reference does; the subnormal branch lets the FPU do the rounding.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

namespace dsv4::formats {

// 2^e for the small exponents used below, at compile time.
namespace rne_fast_detail {
constexpr double pow2(int e) {
  double r = 1;
  for (; e > 0; --e) r *= 2;
  for (; e < 0; ++e) r /= 2;
  return r;
}
}  // namespace rne_fast_detail

template <int kExpBits, int kManBits>
inline std::uint16_t ieee16_rne(double x) {
  constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  constexpr int kEmin = 1 - kBias;              // exponent of the smallest normal
  constexpr int kDrop = 52 - kManBits;          // float64 mantissa bits below the target's last bit
  constexpr std::uint16_t kInf = ((1u << kExpBits) - 1) << kManBits;
  std::uint64_t u = std::bit_cast<std::uint64_t>(x);
  const auto sign = static_cast<std::uint16_t>((u >> 63) << (kExpBits + kManBits));
  u &= ~(std::uint64_t{1} << 63);
  if (u > 0x7FF0000000000000ull) return sign | kInf | (1u << (kManBits - 1));  // NaN
  if (static_cast<int>(u >> 52) - 1023 >= kEmin) {
    // Normal range (and ±Inf): add half a target ulp minus one, plus the kept last bit (ties to even),
    // then drop the low bits. A mantissa carry moves into the next binade, which is the right result.
    u += ((std::uint64_t{1} << (kDrop - 1)) - 1) + ((u >> kDrop) & 1);
    const int e = static_cast<int>(u >> 52) - 1023;
    if (e > kBias) return sign | kInf;  // past the largest finite value, or Inf itself
    return sign | static_cast<std::uint16_t>((static_cast<unsigned>(e + kBias) << kManBits) |
                                             ((u >> kDrop) & ((1u << kManBits) - 1)));
  }
  // Below the smallest normal the grid is multiples of q = 2^(kEmin - kManBits). Adding 2^52·q puts
  // |x| in a binade whose float64 ulp is q, so the FPU's RNE rounds to the grid; subtracting is exact.
  constexpr double kShift = rne_fast_detail::pow2(52 + kEmin - kManBits);
  const double a = (std::fabs(x) + kShift) - kShift;
  return sign | static_cast<std::uint16_t>(a * rne_fast_detail::pow2(kManBits - kEmin));  // 2^kManBits = min normal
}

inline std::uint16_t bf16_rne(double x) { return ieee16_rne<8, 7>(x); }
inline std::uint16_t fp16_rne(double x) { return ieee16_rne<5, 10>(x); }

// Exact float64 value of a bf16 code (the code is the top half of a float32).
inline double bf16_to_double(std::uint16_t c) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(c) << 16));
}

}  // namespace dsv4::formats
