// Float64 reference of merge_attn_states; see merge_attn_states.hpp.
#include "reference/ops/merge_attn_states/merge_attn_states.hpp"

#include <cmath>
#include <limits>

#include "reference/ops/common/attn_io.hpp"
#include "reference/ops/common/checks.hpp"
#include "reference/ops/common/kv_scale.hpp"

namespace dsv4 {

namespace {
constexpr const char* kOp = "merge_attn_states";
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_output_arg(const std::string& arg, const Tensor& t) {
  checks::dtype_in(kOp, arg, t, {DType::F32, DType::F16, DType::BF16});
  checks::rank(kOp, arg, t, 3, "[T, H, D]");
  checks::last_dim_contiguous(kOp, arg, t);
  checks::require(t.size(1) <= 1 || t.stride(1) >= t.size(2), kOp, arg,
                  fmt::format("head stride {} must be >= D = {}", t.stride(1), t.size(2)));
  checks::require(t.size(0) <= 1 || t.stride(0) == t.size(1) * t.stride(1), kOp, arg,
                  fmt::format("token stride must be H * head_stride = {} (arbitrary token strides are not "
                              "allowed), got {}", t.size(1) * t.stride(1), t.stride(0)));
}

void check_lse_arg(const std::string& arg, const Tensor& t, std::int64_t H, std::int64_t T) {
  checks::dtype_in(kOp, arg, t, {DType::F32});
  checks::rank(kOp, arg, t, 2, "[H, T]");
  checks::dim_eq(kOp, arg, t, 0, H, "H");
  checks::dim_eq(kOp, arg, t, 1, T, "T");
}
}  // namespace

Outputs merge_attn_states_reference(const OpCase& c) {
  using namespace attn;
  const Tensor& P = c.in("prefix_output");
  const Tensor& S = c.in("suffix_output");
  const Tensor& pl = c.in("prefix_lse");
  const Tensor& sl = c.in("suffix_lse");
  check_output_arg("prefix_output", P);
  check_output_arg("suffix_output", S);
  const std::int64_t T = P.size(0), H = P.size(1), D = P.size(2);
  checks::require(S.dtype() == P.dtype(), kOp, "suffix_output", "must have the same dtype as prefix_output");
  checks::require(S.shape() == P.shape(), kOp, "suffix_output",
                  fmt::format("shape {} must equal prefix_output's {}", shape_str(S.shape()), shape_str(P.shape())));
  checks::require(H <= 1 || S.stride(1) == P.stride(1), kOp, "suffix_output",
                  fmt::format("head stride {} must equal prefix_output's {}", S.stride(1), P.stride(1)));
  check_lse_arg("prefix_lse", pl, H, T);
  check_lse_arg("suffix_lse", sl, H, T);

  std::int64_t ptc = T;
  if (attr_present(c.attrs, "prefill_tokens_with_context")) {
    ptc = attr_int(kOp, c.attrs, "prefill_tokens_with_context");
    checks::require(ptc >= 0 && ptc <= T, kOp, "prefill_tokens_with_context",
                    fmt::format("must be in [0, T = {}], got {}", T, ptc));
  }
  const bool fp8_out = attr_present(c.attrs, "output_scale");
  double scale = 1;
  formats::Format f8 = formats::Format::e4m3fn;
  if (fp8_out) {
    scale = attr_double(kOp, c.attrs, "output_scale");
    checks::require(std::isfinite(scale) && scale > 0, kOp, "output_scale", "must be finite and > 0");
    const std::string ff = attr_string_or(kOp, c.attrs, "output_fp8_format", "e4m3fn");
    checks::require(ff == "e4m3fn" || ff == "e4m3fnuz", kOp, "output_fp8_format", "must be e4m3fn or e4m3fnuz");
    f8 = ff == "e4m3fn" ? formats::Format::e4m3fn : formats::Format::e4m3fnuz;
  }
  const std::string both = attr_string_or(kOp, c.attrs, "both_empty", "zeros");
  checks::require(both == "zeros" || both == "copy_prefix", kOp, "both_empty", "must be 'zeros' or 'copy_prefix'");
  const std::string posinf = attr_string_or(kOp, c.attrs, "pos_inf_lse", "empty");
  checks::require(posinf == "empty" || posinf == "raw", kOp, "pos_inf_lse", "must be 'empty' or 'raw'");

  // Output keeps the prefix's head stride (padded heads); padding is poisoned.
  const std::int64_t hs = H <= 1 ? D : P.stride(1);
  const DType odt = fp8_out ? (f8 == formats::Format::e4m3fn ? DType::F8_E4M3FN : DType::F8_E4M3FNUZ) : P.dtype();
  Tensor store = Tensor::empty(odt, {T * H * hs});
  if (fp8_out) store.fill_bytes(0x7F); else store.fill(kNaN);
  Tensor out = store.as_strided({T, H, D}, {H * hs, hs, 1}, 0);
  Tensor out_lse = Tensor::empty(DType::F32, {H, T});
  const double fmax = formats::max_finite(f8);

  auto put = [&](std::int64_t t, std::int64_t h, std::int64_t d, double v) {
    const std::int64_t off = t * H * hs + h * hs + d;
    if (!fp8_out) {
      if (odt == DType::BF16) store_bf16(out, off, v);
      else if (odt == DType::F32) store_f32(out, off, v);
      else out.set({t, h, d}, v);
      return;
    }
    double y = v / scale;
    if (!std::isnan(y)) y = std::clamp(y, -fmax, fmax);
    out.ptr<std::uint8_t>()[off] = kv::encode_fp8(f8, y, true);
  };

#pragma omp parallel for collapse(2) schedule(static) if (T * H * D > 65536)
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t h = 0; h < H; ++h) {
      const std::int64_t po = t * P.stride(0) + h * P.stride(1), so = t * S.stride(0) + h * S.stride(1);
      const double p_raw = load_float(pl, h * pl.stride(0) + t * pl.stride(1));
      const double s_raw = load_float(sl, h * sl.stride(0) + t * sl.stride(1));
      if (t >= ptc) {
        for (std::int64_t d = 0; d < D; ++d) put(t, h, d, load_float(S, so + d));
        out_lse.ptr<float>()[h * T + t] = static_cast<float>(s_raw);
        continue;
      }
      double p = p_raw, s = s_raw;
      if (posinf == "empty") {
        if (p == kInf) p = -kInf;
        if (s == kInf) s = -kInf;
      }
      double lse;
      if (std::isnan(p) || std::isnan(s)) {
        for (std::int64_t d = 0; d < D; ++d) put(t, h, d, kNaN);
        lse = kNaN;
      } else if (std::max(p, s) == -kInf) {
        for (std::int64_t d = 0; d < D; ++d) put(t, h, d, both == "zeros" ? 0.0 : load_float(P, po + d));
        lse = -kInf;
      } else {
        const double m = std::max(p, s);
        const double pe = std::exp(p - m), se = std::exp(s - m), den = pe + se;
        const double wp = pe / den, ws = se / den;
        for (std::int64_t d = 0; d < D; ++d) {
          const double a = load_float(P, po + d), b = load_float(S, so + d);
          // A zero weight must not turn a NaN/Inf from the other, empty side into NaN (0 * x is
          // skipped): the empty side contributes nothing, as the math says.
          put(t, h, d, (wp != 0 ? a * wp : 0.0) + (ws != 0 ? b * ws : 0.0));
        }
        lse = std::log(den) + m;
      }
      out_lse.ptr<float>()[h * T + t] = static_cast<float>(lse);
    }
  return {{"output", out}, {"output_lse", out_lse}};
}

}  // namespace dsv4
