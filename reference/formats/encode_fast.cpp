// Fast float32 encoder: integer arithmetic on the float32 bits, with each mode compiled into constant
// result codes at construction (see encode.hpp). Independent of encode_reference.cpp by design.
#include <bit>
#include <stdexcept>

#include "reference/formats/encode.hpp"
#include "reference/formats/rne.hpp"

namespace dsv4::formats {

namespace {
std::uint32_t f32_bits(float x) { return std::bit_cast<std::uint32_t>(x); }
}  // namespace

FastEncoder::FastEncoder(Format f, const EncodeMode& mode) : f_(f) {
  const EncodeMode m = resolve_mode(f, mode);
  const FormatInfo& fi = info(f);
  if (f == Format::e8m0fnu) {
    path_ = Path::e8m0;
    e8_kind_ = m.kind == ModeKind::e8m0_nearest_tiesup ? 0 : m.kind == ModeKind::e8m0_ceil ? 1 : 2;
    e8_zero_ = m.zero == E8m0Zero::nan ? 0xFF : 0x00;
    e8_neg_ = m.neg == E8m0Neg::abs ? 0 : m.neg == E8m0Neg::nan ? 1 : 2;
    e8_inf_ = m.inf == E8m0Inf::max ? 0xFE : 0xFF;
    e8_ovf_ = m.saturate ? 0xFE : 0xFF;
    return;
  }
  if (m.kind == ModeKind::fp4_ties_to_zero) {
    path_ = Path::fp4_ties_to_zero;
    return;
  }
  path_ = Path::grid;
  const int mb = fi.mantissa_bits;
  shift_ = static_cast<std::uint32_t>(23 - mb);
  rebias_ = static_cast<std::uint32_t>(127 - fi.bias) << mb;
  emin_f32_ = static_cast<std::uint32_t>(128 - fi.bias);        // biased fp32 exponent of the target's min normal
  qexp150_ = static_cast<std::uint32_t>(151 - fi.bias - mb);     // quantum exponent + 150
  maxc_ = max_finite_code(f);
  sign_shift_ = static_cast<std::uint32_t>(fi.bits() - 1);
  const std::uint32_t sbit = 1u << sign_shift_;
  const bool fnuz = fi.kind == SpecialKind::fnuz;
  zero_unsigned_ = fnuz;
  rtz_ = m.kind == ModeKind::rtz;
  // Codes as constants, per sign.
  std::uint32_t nan_mag = 0, infnan_mag = 0;
  switch (f) {
    case Format::e4m3fn: nan_mag = 0x7F; infnan_mag = 0x7F; break;
    case Format::e5m2: nan_mag = 0x7F; infnan_mag = 0x7C; break;
    case Format::bf16: nan_mag = 0x7FC0; infnan_mag = 0x7F80; break;
    case Format::fp16: nan_mag = 0x7E00; infnan_mag = 0x7C00; break;
    default: break;
  }
  auto signed_pair = [&](std::uint32_t mag, std::uint32_t& pos, std::uint32_t& neg) {
    pos = mag;
    neg = fnuz ? mag : (mag | sbit);
  };
  if (fnuz) { nan_mag = 0x80; infnan_mag = 0x80; }
  std::uint32_t infnan_pos, infnan_neg, max_pos = maxc_, max_neg = maxc_ | sbit;
  signed_pair(infnan_mag, infnan_pos, infnan_neg);
  // NaN
  if (f == Format::e2m1fn) {
    switch (m.nan) {
      case NanPolicy::fp4_pos6: nan_pos_ = 0x7; nan_neg_ = 0x7; break;
      case NanPolicy::fp4_signed6: nan_pos_ = 0x7; nan_neg_ = 0xF; break;
      case NanPolicy::fp4_sign_inverted_zero: nan_pos_ = 0x8; nan_neg_ = 0x0; break;
      default: nan_pos_ = 0x0; nan_neg_ = 0x0; break;
    }
    inf_pos_ = max_pos; inf_neg_ = max_neg; ovf_pos_ = max_pos; ovf_neg_ = max_neg;
    return;
  }
  switch (m.nan) {
    case NanPolicy::canonical_pos: nan_pos_ = nan_neg_ = nan_mag; break;
    case NanPolicy::quiet_sign: signed_pair(f == Format::e5m2 ? 0x7Eu : nan_mag, nan_pos_, nan_neg_); break;
    case NanPolicy::quiet_keep: nan_payload_ = true; signed_pair(nan_mag, nan_pos_, nan_neg_); break;
    default: signed_pair(nan_mag, nan_pos_, nan_neg_); break;
  }
  if (fnuz) nan_pos_ = nan_neg_ = 0x80;
  const bool hip_old_sat = m.kind == ModeKind::hip_sw_precheck && m.hip == HipHeaders::old && m.saturate;
  if (hip_old_sat && fnuz) { nan_pos_ = max_pos; nan_neg_ = max_neg; }
  // Inf
  const bool inf_to_max = m.kind == ModeKind::rne_satfinite || hip_old_sat;
  inf_pos_ = inf_to_max ? max_pos : infnan_pos;
  inf_neg_ = inf_to_max ? max_neg : infnan_neg;
  // Overflow of a finite value
  const bool ovf_to_max = m.kind == ModeKind::rne_satfinite || m.kind == ModeKind::rne_sat_keepinf ||
                          ((m.kind == ModeKind::rtz || m.kind == ModeKind::hip_sw_precheck) && m.saturate);
  ovf_pos_ = ovf_to_max ? max_pos : infnan_pos;
  ovf_neg_ = ovf_to_max ? max_neg : infnan_neg;
  const std::uint32_t max_bits = f32_bits(static_cast<float>(max_finite(f)));
  if (m.kind == ModeKind::hip_sw_precheck) precheck_bits_ = max_bits;
  if (m.kind == ModeKind::hip_fast_clamp) clamp_bits_ = max_bits;
}

std::uint32_t FastEncoder::grid_code(std::uint32_t bits) const {
  const std::uint32_t neg = bits >> 31;
  std::uint32_t a = bits & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) {
    if (a == 0x7F800000u) return neg ? inf_neg_ : inf_pos_;
    if (nan_payload_) {
      const std::uint32_t sbit = neg << sign_shift_;
      return sbit | (((a >> shift_) | 1u) & ((1u << (sign_shift_)) - 1));
    }
    return neg ? nan_neg_ : nan_pos_;
  }
  if (a > precheck_bits_) return neg ? ovf_neg_ : ovf_pos_;
  if (a > clamp_bits_) a = clamp_bits_;
  const std::uint32_t E = a >> 23;
  std::uint32_t mag;
  if (E >= emin_f32_) {
    const std::uint32_t r = rtz_ ? a : a + ((1u << (shift_ - 1)) - 1) + ((a >> shift_) & 1u);
    mag = (r >> shift_) - rebias_;
  } else {
    const std::uint32_t sig = E == 0 ? (a & 0x7FFFFFu) : ((a & 0x7FFFFFu) | 0x800000u);
    const std::uint32_t st = qexp150_ - (E == 0 ? 1u : E);  // right shift from sig to target quanta (>= shift_+1)
    if (st > 25) {
      mag = 0;  // sig < 2^24 <= half a quantum
    } else if (rtz_) {
      mag = sig >> st;
    } else {
      mag = (sig + ((1u << (st - 1)) - 1) + ((sig >> st) & 1u)) >> st;
    }
  }
  if (mag > maxc_) return neg ? ovf_neg_ : ovf_pos_;
  if (mag == 0 && zero_unsigned_) return 0;
  return (neg << sign_shift_) | mag;
}

std::uint32_t FastEncoder::e8m0_code(std::uint32_t bits) const {
  const std::uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0xFF;
  if (a == 0) return e8_zero_;
  if (bits >> 31) {
    if (e8_neg_ == 1) return 0xFF;
    if (e8_neg_ == 2) return 0x00;
  }
  if (a == 0x7F800000u) return e8_inf_;
  std::uint32_t e = a >> 23;
  const std::uint32_t man = a & 0x7FFFFFu;
  switch (e8_kind_) {
    case 0: {  // nearest, ties up: guard bit set and (round|sticky|lsb), lsb = normal input
      const bool g = man & 0x400000u, rs = man & 0x3FFFFFu;
      if (g && (rs || e > 0)) ++e;
      break;
    }
    case 1:  // ceil
      if (e == 0) e = man > 0x400000u ? 1 : 0;
      else e += man != 0;
      break;
    default: break;  // floor: the exponent field (subnormals -> 0x00)
  }
  return e >= 255 ? e8_ovf_ : e;
}

std::uint32_t FastEncoder::fp4tz_code(std::uint32_t bits) const {
  // Bucketize |x| over the midpoints: the code is the number of midpoints strictly below |x|.
  static constexpr std::uint32_t kMid[7] = {0x3E800000u /*0.25*/, 0x3F400000u /*0.75*/, 0x3FA00000u /*1.25*/,
                                            0x3FE00000u /*1.75*/, 0x40200000u /*2.5*/,  0x40600000u /*3.5*/,
                                            0x40A00000u /*5*/};
  const std::uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0;
  std::uint32_t c = 0;
  for (std::uint32_t t : kMid) c += a > t;
  return (c != 0 && (bits >> 31)) ? (c | 0x8u) : c;
}

std::uint32_t FastEncoder::from_bits(std::uint32_t bits) const {
  switch (path_) {
    case Path::grid: return grid_code(bits);
    case Path::e8m0: return e8m0_code(bits);
    case Path::fp4_ties_to_zero: return fp4tz_code(bits);
  }
  return 0;
}

std::uint32_t FastEncoder::operator()(float x) const { return from_bits(f32_bits(x)); }

void FastEncoder::encode8(std::span<const float> in, std::span<std::uint8_t> out) const {
  if (code_bytes(f_) != 1) throw std::invalid_argument("encode8: " + std::string(name(f_)) + " codes take two bytes");
  if (in.size() != out.size()) throw std::invalid_argument("encode8: input and output sizes differ");
  switch (path_) {
    case Path::grid: for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<std::uint8_t>(grid_code(f32_bits(in[i]))); break;
    case Path::e8m0: for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<std::uint8_t>(e8m0_code(f32_bits(in[i]))); break;
    case Path::fp4_ties_to_zero: for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<std::uint8_t>(fp4tz_code(f32_bits(in[i]))); break;
  }
}

void FastEncoder::encode16(std::span<const float> in, std::span<std::uint16_t> out) const {
  if (code_bytes(f_) != 2) throw std::invalid_argument("encode16: " + std::string(name(f_)) + " codes take one byte");
  if (in.size() != out.size()) throw std::invalid_argument("encode16: input and output sizes differ");
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<std::uint16_t>(grid_code(f32_bits(in[i])));
}

void FastEncoder::encode_range(std::uint32_t first, std::span<std::uint32_t> out) const {
  const std::size_t n = out.size();
  switch (path_) {
    case Path::grid:
      for (std::size_t i = 0; i < n; ++i) out[i] = grid_code(first + static_cast<std::uint32_t>(i));
      break;
    case Path::e8m0:
      for (std::size_t i = 0; i < n; ++i) out[i] = e8m0_code(first + static_cast<std::uint32_t>(i));
      break;
    case Path::fp4_ties_to_zero:
      for (std::size_t i = 0; i < n; ++i) out[i] = fp4tz_code(first + static_cast<std::uint32_t>(i));
      break;
  }
}

std::uint32_t encode_f32(Format f, const EncodeMode& mode, float x) { return FastEncoder(f, mode)(x); }

}  // namespace dsv4::formats
