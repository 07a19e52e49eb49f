// The low-precision number formats of DeepSeek-V4 kernels (formats.md §1) and their exact decode.
// Every format is identified by Format; names are the CLI names (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz,
// e8m0fnu, e2m1fn, bf16, fp16). Decoding is exact and has no modes except e8m0's shift23 emulation
// (see encode.hpp / e8m0.hpp). Codes are held in the low bits of a uint32_t.
// e2m3fn and e3m2fn (OCP MX FP6 E2M3 / BF6 E3M2: bias 1 / 3, no Inf, no NaN) are decode-only: they serve the
// gfx950 f8f6f4 MFMA operands on the sim; no encode mode takes them and kAllFormats (the CLI's list) leaves them out.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace dsv4::formats {

enum class Format : std::uint8_t { e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0fnu, e2m1fn, bf16, fp16, e2m3fn, e3m2fn };

inline constexpr Format kAllFormats[] = {Format::e4m3fn,  Format::e4m3fnuz, Format::e5m2, Format::e5m2fnuz,
                                         Format::e8m0fnu, Format::e2m1fn,   Format::bf16, Format::fp16};

// Bit layout of a format. kind says where the special codes live.
enum class SpecialKind : std::uint8_t {
  ieee,      // exponent all-ones: Inf (mantissa 0) or NaN (e5m2, bf16, fp16)
  fn,        // no Inf; S.1111.111 is NaN; 0x80 is -0 (e4m3fn)
  fnuz,      // no Inf, no -0; 0x80 is the only NaN (e4m3fnuz, e5m2fnuz)
  e8m0,      // unsigned exponent only; 0xFF is NaN; no zero (e8m0fnu)
  finite,    // no Inf, no NaN (e2m1fn, e2m3fn, e3m2fn)
};

struct FormatInfo {
  std::string_view name;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_sign;
  SpecialKind kind;
  int bits() const { return (has_sign ? 1 : 0) + exponent_bits + mantissa_bits; }
  std::uint32_t code_count() const { return 1u << bits(); }
};

const FormatInfo& info(Format f);
std::string_view name(Format f);
std::optional<Format> parse_format(std::string_view name);

// Exact value of a code (NaN for NaN codes, +-Inf for Inf codes). e8m0 0x00 is 2^-127 (built by
// bit construction, so it survives FTZ), 0xFF is NaN. fn 0x80 is -0.0, fnuz 0x80 is NaN.
double decode(Format f, std::uint32_t code);
float decode_f32(Format f, std::uint32_t code);

// Largest finite value of the format.
double max_finite(Format f);

// Classification of a code, as printed by `dsv4check formats show`.
enum class CodeClass : std::uint8_t { zero, subnormal, normal, infinity, nan };
CodeClass classify(Format f, std::uint32_t code);
std::string_view class_name(CodeClass c);

}  // namespace dsv4::formats
