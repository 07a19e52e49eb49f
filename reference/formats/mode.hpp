// Named conversion modes (formats.md §0). Every encode entry point takes an EncodeMode; nothing picks
// a semantics silently. A mode is parsed from a string "<id>[:<opt>[,<opt>...]]", e.g.
//   rne-nonsat            rne-satfinite:nan=canonical-pos     hip-sw-precheck:sat
//   e8m0-ceil:satfinite   e8m0-nearest-tiesup:zero=nan,neg=nan fp4-rne-satfinite:nan=+6
//   bf16-rne:nan=quiet-keep   torch   ml_dtypes
// Options: sat | nonsat | satfinite (same as sat), nan=<keep-sign|canonical-pos|quiet-sign|quiet-keep|
// +6|±6 (also +-6)|sign-inverted-0|+0>, zero=<min|nan>, neg=<abs|nan|min>, inf=<nan|max>, hip=<new|old>.
// `torch` and `ml_dtypes` are library modes: resolve_mode() turns them into the semantic mode that
// reproduces that library bit for bit for a given format (see docs/formats.md).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "reference/formats/format.hpp"

namespace dsv4::formats {

enum class ModeKind : std::uint8_t {
  rne_nonsat,           // RNE; overflow and +-Inf -> NaN code (fn/fnuz) or +-Inf (ieee)
  rne_satfinite,        // RNE; overflow and +-Inf -> +-max; NaN stays NaN
  rne_sat_keepinf,      // RNE; finite overflow -> +-max; +-Inf -> Inf or the NaN code
  hip_sw_precheck,      // |x| > max tested before rounding; sat -> +-max, nonsat -> Inf/NaN code
  hip_fast_clamp,       // finite clamped to +-max, then RNE; Inf/NaN to the hardware (FP16_OVFL=0 model)
  rtz,                  // round toward zero; overflow per `saturate`
  e8m0_nearest_tiesup,  // |x| to nearest power of two, linear midpoint 1.5*2^e, ties up
  e8m0_ceil,            // smallest power of two >= |x|
  e8m0_floor,           // largest power of two <= |x|
  fp4_rne_satfinite,    // e2m1 RNE, overflow/Inf -> +-6, NaN per `nan`
  fp4_ties_to_zero,     // e2m1 nearest, ties toward zero, NaN -> +0, zero unsigned
  bf16_rne,             // bf16 RNE with overflow to Inf; NaN per `nan`
  torch,                // PyTorch CPU .to(dtype) (resolved per format)
  ml_dtypes,            // ml_dtypes default cast (resolved per format)
};

enum class NanPolicy : std::uint8_t {
  keep_sign,        // the format's NaN code with the input's sign (fn 0x7F|s, e5m2 0x7F|s, bf16 0x7FC0|s, fp16 0x7E00|s)
  canonical_pos,    // the same code, sign dropped (CUDA software fp8; c10 CPU bf16)
  quiet_sign,       // the quiet NaN (top mantissa bit only) with sign: e5m2 0x7E|s (ml_dtypes); else = keep_sign
  quiet_keep,       // bf16/fp16: sign and truncated payload kept, lowest kept mantissa bit forced (HIP bf16)
  fp4_pos6,         // e2m1: NaN -> +6 (CUDA)
  fp4_signed6,      // e2m1: NaN -> +-6 by sign (HIP ocp_host)
  fp4_sign_inverted_zero,  // e2m1: +NaN -> 0x8, -NaN -> 0x0 (ml_dtypes)
  fp4_pos0,         // e2m1: NaN -> +0 (0x0)
};

enum class E8m0Zero : std::uint8_t { min, nan };      // +-0 -> 0x00 or 0xFF
enum class E8m0Neg : std::uint8_t { abs, nan, min };  // x<0 -> as |x|, 0xFF, or 0x00
enum class E8m0Inf : std::uint8_t { nan, max };       // +Inf (and |x| Inf under neg=abs) -> 0xFF or 0xFE
enum class HipHeaders : std::uint8_t { current, old }; // rocm-systems@10f71497 / clr@00387053 vs clr@f9f995c6

struct EncodeMode {
  ModeKind kind = ModeKind::rne_nonsat;
  bool saturate = false;  // hip-sw-precheck, rtz, e8m0-*: finite overflow -> max instead of NaN/Inf
  NanPolicy nan = NanPolicy::keep_sign;
  E8m0Zero zero = E8m0Zero::min;
  E8m0Neg neg = E8m0Neg::abs;
  E8m0Inf inf = E8m0Inf::nan;
  HipHeaders hip = HipHeaders::current;
  bool operator==(const EncodeMode&) const = default;
};

// Parses a mode string; throws std::invalid_argument naming the bad part and listing the valid ids.
EncodeMode parse_mode(std::string_view text);
// Canonical string of a mode (parse_mode(mode_name(m)) == m).
std::string mode_name(const EncodeMode& m);
// Every mode id, for help texts and docs.
std::string_view mode_ids_help();

// Library modes (torch, ml_dtypes) become the semantic mode that reproduces the library for format f;
// a semantic mode is returned unchanged. Throws std::invalid_argument if the mode does not apply to f
// (e.g. e8m0-ceil for e4m3fn, torch for e2m1fn: PyTorch has no float32 -> fp4 cast).
EncodeMode resolve_mode(Format f, const EncodeMode& m);

// Decode modes for e8m0 (formats.md §2): exact (0x00 = 2^-127, 0xFF = NaN) or shift23 (byte<<23).
enum class E8m0Decode : std::uint8_t { exact, shift23 };
E8m0Decode parse_e8m0_decode(std::string_view text);  // "e8m0-exact" | "e8m0-shift23"
float decode_e8m0(std::uint8_t byte, E8m0Decode mode);

}  // namespace dsv4::formats
