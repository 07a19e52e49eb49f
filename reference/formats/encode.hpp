// Encoding float32/float64 into a format under a named mode (mode.hpp). Two independent
// implementations exist on purpose:
//  - encode(): the reference. It reads the mode's definition literally on the exact float64 value
//    (round_magnitude in rne.cpp, frexp-based e8m0), slow and obviously correct.
//  - FastEncoder / encode_f32(): the bit-manipulation path on float32 bits, with the mode compiled into
//    a few constant codes. Used by the CLI bulk path and by the recipes. The exhaustive test compares
//    it with encode() over all 2^32 float32 inputs.
// `torch` on a float64 input first rounds to float32 (c10's fp8 constructors take a float).
#pragma once
#include <cstdint>
#include <span>

#include "reference/formats/format.hpp"
#include "reference/formats/mode.hpp"

namespace dsv4::formats {

// Reference encoder; throws std::invalid_argument if the mode does not apply to f.
std::uint32_t encode(Format f, const EncodeMode& mode, double x);
// Reference encoder on a float32 given by its bits. Same as encode((double)x) except that a NaN's
// payload is read from the float32 bits (a float->double conversion would quieten a signalling NaN).
std::uint32_t encode_f32_bits_reference(Format f, const EncodeMode& mode, std::uint32_t f32_bits);

// The fast float32 encoder for one (format, mode), with the mode resolved and compiled once.
class FastEncoder {
 public:
  FastEncoder(Format f, const EncodeMode& mode);  // throws std::invalid_argument like encode()
  std::uint32_t operator()(float x) const;
  std::uint32_t from_bits(std::uint32_t float_bits) const;
  Format format() const { return f_; }
  // Bulk: one byte per code (fp8, e8m0, e2m1) or two (bf16, fp16); out.size() must equal in.size().
  void encode8(std::span<const float> in, std::span<std::uint8_t> out) const;
  void encode16(std::span<const float> in, std::span<std::uint16_t> out) const;
  // out[i] = from_bits(first_bits + i): for exhaustive sweeps (one dispatch per call, not per value).
  void encode_range(std::uint32_t first_bits, std::span<std::uint32_t> out) const;

 private:
  enum class Path : std::uint8_t { grid, e8m0, fp4_ties_to_zero };
  Format f_;
  Path path_ = Path::grid;
  // grid path
  std::uint32_t shift_ = 0, rebias_ = 0, emin_f32_ = 0, qexp150_ = 0, maxc_ = 0, sign_shift_ = 0;
  std::uint32_t nan_pos_ = 0, nan_neg_ = 0, inf_pos_ = 0, inf_neg_ = 0, ovf_pos_ = 0, ovf_neg_ = 0;
  std::uint32_t precheck_bits_ = 0xFFFFFFFFu, clamp_bits_ = 0xFFFFFFFFu;
  bool rtz_ = false, zero_unsigned_ = false, nan_payload_ = false;
  // e8m0 path
  std::uint8_t e8_kind_ = 0;  // 0 nearest, 1 ceil, 2 floor
  std::uint32_t e8_zero_ = 0, e8_neg_ = 0 /*0 abs, 1 nan, 2 min*/, e8_inf_ = 0xFF, e8_ovf_ = 0xFF;
  std::uint32_t grid_code(std::uint32_t bits) const;
  std::uint32_t e8m0_code(std::uint32_t bits) const;
  std::uint32_t fp4tz_code(std::uint32_t bits) const;
};

// Convenience: one value through a FastEncoder built on the spot (bulk callers keep the encoder).
std::uint32_t encode_f32(Format f, const EncodeMode& mode, float x);

// Bytes per stored code in bulk files: 2 for bf16/fp16, 1 otherwise.
inline int code_bytes(Format f) { return (f == Format::bf16 || f == Format::fp16) ? 2 : 1; }

}  // namespace dsv4::formats
