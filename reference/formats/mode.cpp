// Parsing, printing and per-format resolution of conversion modes; see mode.hpp.
#include "reference/formats/mode.hpp"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace dsv4::formats {

namespace {

struct KindName {
  ModeKind kind;
  std::string_view name;
};
constexpr KindName kKinds[] = {
    {ModeKind::rne_nonsat, "rne-nonsat"},
    {ModeKind::rne_satfinite, "rne-satfinite"},
    {ModeKind::rne_sat_keepinf, "rne-sat-keepinf"},
    {ModeKind::hip_sw_precheck, "hip-sw-precheck"},
    {ModeKind::hip_fast_clamp, "hip-fast-clamp"},
    {ModeKind::rtz, "rtz"},
    {ModeKind::e8m0_nearest_tiesup, "e8m0-nearest-tiesup"},
    {ModeKind::e8m0_ceil, "e8m0-ceil"},
    {ModeKind::e8m0_floor, "e8m0-floor"},
    {ModeKind::fp4_rne_satfinite, "fp4-rne-satfinite"},
    {ModeKind::fp4_ties_to_zero, "fp4-ties-to-zero"},
    {ModeKind::bf16_rne, "bf16-rne"},
    {ModeKind::torch, "torch"},
    {ModeKind::ml_dtypes, "ml_dtypes"},
};

struct NanName {
  NanPolicy nan;
  std::string_view name;
};
constexpr NanName kNans[] = {
    {NanPolicy::keep_sign, "keep-sign"},      {NanPolicy::canonical_pos, "canonical-pos"},
    {NanPolicy::quiet_sign, "quiet-sign"},    {NanPolicy::quiet_keep, "quiet-keep"},
    {NanPolicy::fp4_pos6, "+6"},              {NanPolicy::fp4_signed6, "+-6"},
    {NanPolicy::fp4_sign_inverted_zero, "sign-inverted-0"}, {NanPolicy::fp4_pos0, "+0"},
};

bool is_e8m0_kind(ModeKind k) {
  return k == ModeKind::e8m0_nearest_tiesup || k == ModeKind::e8m0_ceil || k == ModeKind::e8m0_floor;
}
bool is_fp8(Format f) {
  return f == Format::e4m3fn || f == Format::e4m3fnuz || f == Format::e5m2 || f == Format::e5m2fnuz;
}

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

}  // namespace

std::string_view mode_ids_help() {
  return "rne-nonsat, rne-satfinite, rne-sat-keepinf, hip-sw-precheck[:sat|nonsat], hip-fast-clamp, "
         "rtz[:sat|nonsat], e8m0-nearest-tiesup|e8m0-ceil|e8m0-floor[:satfinite,zero=min|nan,neg=abs|nan|min,"
         "inf=nan|max], fp4-rne-satfinite:nan=+6|+-6|sign-inverted-0|+0, fp4-ties-to-zero, "
         "bf16-rne[:nan=canonical-pos|keep-sign|quiet-keep], torch, ml_dtypes; fp8 modes take "
         "nan=keep-sign|canonical-pos|quiet-sign";
}

EncodeMode parse_mode(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view id = text.substr(0, colon);
  EncodeMode m;
  bool found = false;
  for (const auto& k : kKinds)
    if (k.name == id) { m.kind = k.kind; found = true; }
  if (!found) bad("unknown mode '" + std::string(id) + "'; valid modes: " + std::string(mode_ids_help()));
  // Defaults that follow from the id.
  if (m.kind == ModeKind::fp4_ties_to_zero) m.nan = NanPolicy::fp4_pos0;
  if (m.kind == ModeKind::bf16_rne) m.nan = NanPolicy::canonical_pos;
  bool fp4_nan_given = false;
  bool inf_given = false;
  std::string_view rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  if (colon != std::string_view::npos && rest.empty()) bad("mode '" + std::string(text) + "': empty option list after ':'");
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view opt = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto eq = opt.find('=');
    const std::string_view key = opt.substr(0, eq);
    const std::string_view val = eq == std::string_view::npos ? std::string_view{} : opt.substr(eq + 1);
    auto opt_error = [&](std::string_view rule) {
      bad("mode '" + std::string(text) + "': option '" + std::string(opt) + "' " + std::string(rule));
    };
    if (eq == std::string_view::npos) {
      if (key == "sat" || key == "satfinite") m.saturate = true;
      else if (key == "nonsat") m.saturate = false;
      else opt_error("is unknown (flags: sat, satfinite, nonsat; keys: nan=, zero=, neg=, inf=, hip=)");
      if (m.kind != ModeKind::hip_sw_precheck && m.kind != ModeKind::rtz && !is_e8m0_kind(m.kind))
        opt_error("applies only to hip-sw-precheck, rtz and e8m0-* (the other ids fix their overflow rule)");
      continue;
    }
    if (key == "nan") {
      bool ok = false;
      for (const auto& n : kNans)
        if (n.name == val || (val == "\xC2\xB1" "6" && n.nan == NanPolicy::fp4_signed6)) { m.nan = n.nan; ok = true; }
      if (!ok) opt_error("has an unknown NaN policy (keep-sign, canonical-pos, quiet-sign, quiet-keep, +6, +-6, sign-inverted-0, +0)");
      const bool fp4_policy = m.nan >= NanPolicy::fp4_pos6;
      if (m.kind == ModeKind::fp4_rne_satfinite) {
        if (!fp4_policy) opt_error("is not an fp4 NaN policy (+6, +-6, sign-inverted-0, +0)");
        fp4_nan_given = true;
      } else if (fp4_policy) {
        opt_error("is only valid for fp4-rne-satfinite");
      } else if (is_e8m0_kind(m.kind) || m.kind == ModeKind::fp4_ties_to_zero || m.kind == ModeKind::torch ||
                 m.kind == ModeKind::ml_dtypes) {
        opt_error("is not an option of this mode (its NaN result is fixed)");
      }
    } else if (key == "zero" || key == "neg" || key == "inf") {
      if (!is_e8m0_kind(m.kind)) opt_error("applies only to e8m0-* modes");
      if (key == "zero") {
        if (val == "min") m.zero = E8m0Zero::min;
        else if (val == "nan") m.zero = E8m0Zero::nan;
        else opt_error("must be zero=min or zero=nan");
      } else if (key == "neg") {
        if (val == "abs") m.neg = E8m0Neg::abs;
        else if (val == "nan") m.neg = E8m0Neg::nan;
        else if (val == "min") m.neg = E8m0Neg::min;
        else opt_error("must be neg=abs, neg=nan or neg=min");
      } else {
        inf_given = true;
        if (val == "nan") m.inf = E8m0Inf::nan;
        else if (val == "max") m.inf = E8m0Inf::max;
        else opt_error("must be inf=nan or inf=max");
      }
    } else if (key == "hip") {
      if (m.kind != ModeKind::hip_sw_precheck) opt_error("applies only to hip-sw-precheck");
      if (val == "new" || val == "current") m.hip = HipHeaders::current;
      else if (val == "old") m.hip = HipHeaders::old;
      else opt_error("must be hip=new or hip=old");
    } else {
      opt_error("is unknown (keys: nan=, zero=, neg=, inf=, hip=)");
    }
  }
  if (m.kind == ModeKind::fp4_rne_satfinite && !fp4_nan_given)
    bad("mode '" + std::string(text) + "': fp4-rne-satfinite needs a NaN policy: nan=+6 (CUDA), nan=+-6 (HIP "
        "ocp_host), nan=sign-inverted-0 (ml_dtypes) or nan=+0");
  // Saturating e8m0 sends Inf to 0xFE unless inf= says otherwise (CUDA SATFINITE).
  if (is_e8m0_kind(m.kind) && m.saturate && !inf_given) m.inf = E8m0Inf::max;
  return m;
}

std::string mode_name(const EncodeMode& m) {
  std::string s;
  for (const auto& k : kKinds)
    if (k.kind == m.kind) s = std::string(k.name);
  std::vector<std::string> opts;
  auto nan_name = [&] {
    for (const auto& n : kNans)
      if (n.nan == m.nan) return std::string(n.name);
    return std::string("?");
  };
  switch (m.kind) {
    case ModeKind::rne_nonsat: case ModeKind::rne_satfinite: case ModeKind::rne_sat_keepinf:
    case ModeKind::hip_fast_clamp:
      if (m.nan != NanPolicy::keep_sign) opts.push_back("nan=" + nan_name());
      break;
    case ModeKind::hip_sw_precheck: case ModeKind::rtz:
      opts.push_back(m.saturate ? "sat" : "nonsat");
      if (m.nan != NanPolicy::keep_sign) opts.push_back("nan=" + nan_name());
      if (m.kind == ModeKind::hip_sw_precheck && m.hip == HipHeaders::old) opts.push_back("hip=old");
      break;
    case ModeKind::e8m0_nearest_tiesup: case ModeKind::e8m0_ceil: case ModeKind::e8m0_floor:
      opts.push_back(m.saturate ? "satfinite" : "nonsat");
      opts.push_back(std::string("zero=") + (m.zero == E8m0Zero::min ? "min" : "nan"));
      opts.push_back(std::string("neg=") + (m.neg == E8m0Neg::abs ? "abs" : m.neg == E8m0Neg::nan ? "nan" : "min"));
      opts.push_back(std::string("inf=") + (m.inf == E8m0Inf::nan ? "nan" : "max"));
      break;
    case ModeKind::fp4_rne_satfinite: opts.push_back("nan=" + nan_name()); break;
    case ModeKind::bf16_rne: opts.push_back("nan=" + nan_name()); break;
    default: break;
  }
  for (std::size_t i = 0; i < opts.size(); ++i) s += (i == 0 ? ":" : ",") + opts[i];
  return s;
}

EncodeMode resolve_mode(Format f, const EncodeMode& m) {
  const std::string fname(name(f));
  if (f == Format::e2m3fn || f == Format::e3m2fn)
    bad("format " + fname + " is decode-only (the f8f6f4 MFMA operands of the sim): no encode mode applies to it");
  if (m.kind == ModeKind::torch) {
    EncodeMode r;
    if (is_fp8(f)) { r.kind = ModeKind::rne_nonsat; r.nan = NanPolicy::keep_sign; return r; }
    if (f == Format::e8m0fnu) {
      r.kind = ModeKind::e8m0_nearest_tiesup; r.zero = E8m0Zero::min; r.neg = E8m0Neg::abs; r.inf = E8m0Inf::nan;
      return r;
    }
    if (f == Format::bf16) { r.kind = ModeKind::bf16_rne; r.nan = NanPolicy::canonical_pos; return r; }
    if (f == Format::fp16) { r.kind = ModeKind::rne_nonsat; r.nan = NanPolicy::keep_sign; return r; }
    bad("mode 'torch' does not apply to e2m1fn: PyTorch has no float32 -> float4_e2m1fn cast (formats.md §2)");
  }
  if (m.kind == ModeKind::ml_dtypes) {
    EncodeMode r;
    if (is_fp8(f)) { r.kind = ModeKind::rne_nonsat; r.nan = NanPolicy::quiet_sign; return r; }
    if (f == Format::e8m0fnu) {
      r.kind = ModeKind::e8m0_nearest_tiesup; r.zero = E8m0Zero::nan; r.neg = E8m0Neg::nan; r.inf = E8m0Inf::nan;
      return r;
    }
    if (f == Format::e2m1fn) { r.kind = ModeKind::fp4_rne_satfinite; r.nan = NanPolicy::fp4_sign_inverted_zero; return r; }
    if (f == Format::bf16) { r.kind = ModeKind::bf16_rne; r.nan = NanPolicy::quiet_sign; return r; }
    bad("mode 'ml_dtypes' does not apply to fp16: ml_dtypes defines no float16 type (use torch or rne-nonsat)");
  }
  const bool fp8 = is_fp8(f);
  auto refuse = [&](std::string_view rule) {
    bad("mode '" + mode_name(m) + "' does not apply to format " + fname + ": " + std::string(rule));
  };
  switch (m.kind) {
    case ModeKind::rne_nonsat: case ModeKind::rne_satfinite: case ModeKind::rne_sat_keepinf: case ModeKind::rtz:
      if (!fp8 && f != Format::bf16 && f != Format::fp16)
        refuse("rne-*/rtz modes cover fp8, bf16 and fp16 (e8m0 uses e8m0-*, e2m1fn uses fp4-*)");
      if (m.nan == NanPolicy::quiet_keep && fp8) refuse("nan=quiet-keep is for bf16/fp16 only");
      break;
    case ModeKind::hip_sw_precheck: case ModeKind::hip_fast_clamp:
      if (!fp8) refuse("HIP fp8 modes apply to the fp8 formats only");
      if (m.nan == NanPolicy::quiet_keep) refuse("nan=quiet-keep is for bf16/fp16 only");
      break;
    case ModeKind::e8m0_nearest_tiesup: case ModeKind::e8m0_ceil: case ModeKind::e8m0_floor:
      if (f != Format::e8m0fnu) refuse("e8m0-* modes apply to e8m0fnu only");
      break;
    case ModeKind::fp4_rne_satfinite: case ModeKind::fp4_ties_to_zero:
      if (f != Format::e2m1fn) refuse("fp4-* modes apply to e2m1fn only");
      break;
    case ModeKind::bf16_rne:
      if (f != Format::bf16) refuse("bf16-rne applies to bf16 only");
      break;
    default: break;
  }
  return m;
}

E8m0Decode parse_e8m0_decode(std::string_view text) {
  if (text == "e8m0-exact" || text == "exact") return E8m0Decode::exact;
  if (text == "e8m0-shift23" || text == "shift23") return E8m0Decode::shift23;
  bad("unknown e8m0 decode mode '" + std::string(text) + "' (e8m0-exact or e8m0-shift23)");
}

float decode_e8m0(std::uint8_t byte, E8m0Decode mode) {
  if (mode == E8m0Decode::shift23) {
    const std::uint32_t bits = static_cast<std::uint32_t>(byte) << 23;
    float r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
  }
  return decode_f32(Format::e8m0fnu, byte);
}

}  // namespace dsv4::formats
