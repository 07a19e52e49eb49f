// Shared-scale recipes, packed layouts and fn->fnuz migration; see recipes.hpp. Scale arithmetic is
// fp32 (as in the source kernels); power-of-two scales are built by bit construction so that 2^-127
// survives FTZ.
#include "reference/formats/recipes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reference/formats/encode.hpp"
#include "reference/formats/rne.hpp"

namespace dsv4::formats {

namespace {

constexpr std::string_view kRecipeNames[] = {"mx-floor",  "dg-ceil",          "dg-fp4",     "dsv4-act",
                                             "dsv4-fp4",  "tk-ceil",          "v3-triton",  "flashmla-kv-test",
                                             "vllm-v4-kv", "vllm-v4-invrope", "plain-fp32"};

bool is_fp8(Format f) {
  return f == Format::e4m3fn || f == Format::e4m3fnuz || f == Format::e5m2 || f == Format::e5m2fnuz;
}

// 2^k as float by bit construction (0 below 2^-149, +Inf above 2^127).
float pow2f(int k) {
  if (k > 127) return std::numeric_limits<float>::infinity();
  if (k >= -126) return std::bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
  if (k >= -149) return std::bit_cast<float>(1u << (k + 149));
  return 0.0f;
}

// ceil(log2 v) for a positive normal float by its bits (the DeepSeek/DeepGEMM bit trick); NaN/Inf give 128.
int log2_ceil_bits(float v) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(v);
  const int e = static_cast<int>((b >> 23) & 0xFF);
  return e - 127 + ((b & 0x7FFFFF) != 0 ? 1 : 0);
}

float fmax_nan(float a, float b) { return std::isnan(a) ? a : (a < b ? b : a); }  // NaN propagates (torch.clamp)

double default_floor(Recipe r, Format target) {
  switch (r) {
    case Recipe::dg_ceil: case Recipe::dg_fp4: case Recipe::dsv4_act: case Recipe::flashmla_kv_test:
    case Recipe::vllm_v4_kv:
      return 1e-4;
    case Recipe::dsv4_fp4: return 6.0 * std::ldexp(1.0, -126);
    case Recipe::tk_ceil: return target == Format::e2m1fn ? 6.0 * std::ldexp(1.0, -126) : 1e-4;
    case Recipe::v3_triton: case Recipe::vllm_v4_invrope: case Recipe::plain_fp32: return 1e-10;
    case Recipe::mx_floor: return 0.0;
  }
  return 0.0;
}

double default_elem_max(Recipe r, Format target) {
  const bool vllm = r == Recipe::v3_triton || r == Recipe::vllm_v4_kv || r == Recipe::vllm_v4_invrope;
  if (vllm && target == Format::e4m3fnuz) return 224.0;  // vLLM fnuz fp8_max (#45681)
  return max_finite(target);
}

ScaleApply default_apply(Recipe r) {
  switch (r) {
    case Recipe::dg_ceil: case Recipe::dg_fp4: case Recipe::tk_ceil: return ScaleApply::multiply_reciprocal;
    default: return ScaleApply::divide;
  }
}

bool clamps_elements(Recipe r) {
  switch (r) {
    case Recipe::dsv4_act: case Recipe::v3_triton: case Recipe::vllm_v4_kv: case Recipe::vllm_v4_invrope:
    case Recipe::plain_fp32:
      return true;
    default: return false;
  }
}

void check_target(Recipe r, Format target) {
  const bool fp4 = target == Format::e2m1fn;
  bool ok = false;
  switch (r) {
    case Recipe::dg_fp4: case Recipe::dsv4_fp4: ok = fp4; break;
    case Recipe::mx_floor: case Recipe::tk_ceil: ok = fp4 || is_fp8(target); break;
    default: ok = is_fp8(target); break;
  }
  if (!ok)
    throw std::invalid_argument("recipe " + std::string(recipe_name(r)) + " cannot quantize to " +
                                std::string(name(target)) +
                                " (fp8 recipes take e4m3fn/e4m3fnuz/e5m2/e5m2fnuz; dg-fp4/dsv4-fp4 take e2m1fn; "
                                "mx-floor/tk-ceil take both)");
}

BlockScale pow2_scale(int k, bool clamp_0_255 = false) {
  BlockScale s;
  s.scale = pow2f(k);
  s.power_of_two = true;
  int byte = k + 127;
  if (clamp_0_255) byte = std::clamp(byte, 0, 255);
  if (byte >= 0 && byte <= 255) s.e8m0 = static_cast<std::uint8_t>(byte);
  return s;
}

BlockScale nan_scale() {
  BlockScale s;
  s.scale = std::numeric_limits<float>::quiet_NaN();
  s.e8m0 = 0xFF;
  s.power_of_two = true;
  return s;
}

}  // namespace

std::string_view recipe_name(Recipe r) { return kRecipeNames[static_cast<int>(r)]; }

std::optional<Recipe> parse_recipe(std::string_view n) {
  for (Recipe r : kAllRecipes)
    if (recipe_name(r) == n) return r;
  return std::nullopt;
}

int default_group_size(Recipe r) { return (r == Recipe::mx_floor || r == Recipe::dsv4_fp4) ? 32 : 128; }

EncodeMode default_element_mode(Recipe r, Format target) {
  if (target == Format::e2m1fn) {
    if (r == Recipe::dg_fp4) return parse_mode("fp4-ties-to-zero");
    return parse_mode("fp4-rne-satfinite:nan=+0");
  }
  switch (r) {
    case Recipe::mx_floor: return parse_mode("rne-sat-keepinf");
    case Recipe::dg_ceil: case Recipe::flashmla_kv_test: return parse_mode("torch");
    case Recipe::tk_ceil: return parse_mode("rne-nonsat");
    default: return parse_mode("rne-satfinite");
  }
}

BlockScale compute_scale(Recipe r, float amax, Format target, const RecipeOptions& opt) {
  check_target(r, target);
  const float em = static_cast<float>(opt.elem_max.value_or(default_elem_max(r, target)));
  const float fl = static_cast<float>(opt.amax_floor.value_or(default_floor(r, target)));
  if (!(em > 0)) throw std::invalid_argument("recipe options: elem_max must be > 0");
  switch (r) {
    case Recipe::mx_floor: {
      if (std::isnan(amax) || std::isinf(amax)) return nan_scale();
      const int emax_elem = static_cast<int>(std::floor(std::log2(static_cast<double>(max_finite(target)))));
      int shared = -126;  // amax == 0 -> log2(FP32_MIN_NORMAL)
      if (amax > 0) {
        int k;
        std::frexp(static_cast<double>(amax), &k);
        shared = k - 1;  // floor(log2 amax), exact
      }
      const int x = shared - emax_elem;
      if (x > 127) return nan_scale();
      return pow2_scale(std::max(x, -127));
    }
    case Recipe::dg_ceil: case Recipe::dg_fp4: {
      const float sf = fmax_nan(amax, fl) / (r == Recipe::dg_fp4 ? 6.0f : em);
      const std::uint32_t b = std::bit_cast<std::uint32_t>(sf);
      const int e = std::clamp(static_cast<int>(((b >> 23) & 0xFF) + ((b & 0x7FFFFF) != 0 ? 1 : 0)), 1, 254);
      return pow2_scale(e - 127);
    }
    case Recipe::dsv4_act: {
      const float t = fmax_nan(amax, fl) * (1.0f / em);
      return pow2_scale(log2_ceil_bits(t));
    }
    case Recipe::dsv4_fp4: {
      const float t = fmax_nan(amax, fl) / 6.0f;
      return pow2_scale(log2_ceil_bits(t));
    }
    case Recipe::tk_ceil: {
      const float sf = fmax_nan(amax, fl) / em;
      const std::uint32_t b = std::bit_cast<std::uint32_t>(sf);
      const int e = static_cast<int>(((b - 1) >> 23) + 1) - 127;
      return pow2_scale(e);
    }
    case Recipe::v3_triton: case Recipe::vllm_v4_invrope: case Recipe::vllm_v4_kv: {
      const float q = fmax_nan(amax, fl) / em;
      const float c = std::ceil(std::log2(q));  // float log2, as tl.log2 / torch.log2 on fp32
      if (std::isnan(c)) return nan_scale();
      const int k = static_cast<int>(std::clamp(c, -1000.0f, 1000.0f));
      BlockScale s = pow2_scale(k, /*clamp_0_255=*/true);
      return s;
    }
    case Recipe::flashmla_kv_test: {
      const float sf = amax / em;
      const float c = std::ceil(std::log2(fmax_nan(sf, fl)));
      if (std::isnan(c)) return nan_scale();
      return pow2_scale(static_cast<int>(std::clamp(c, -1000.0f, 1000.0f)));
    }
    case Recipe::plain_fp32: {
      BlockScale s;
      s.scale = fmax_nan(amax, fl) / em;
      return s;
    }
  }
  return {};
}

QuantResult quantize_block(Recipe r, std::span<const float> x, Format target, const RecipeOptions& opt) {
  check_target(r, target);
  QuantResult q;
  float amax = 0;
  for (float v : x) amax = std::isnan(v) || std::isnan(amax) ? std::numeric_limits<float>::quiet_NaN()
                                                           : std::max(amax, std::fabs(v));
  q.amax = amax;
  q.scale = compute_scale(r, amax, target, opt);
  const float s = q.scale.scale;
  const float em = static_cast<float>(opt.elem_max.value_or(
      r == Recipe::dg_fp4 || r == Recipe::dsv4_fp4 ? 6.0 : default_elem_max(r, target)));
  const ScaleApply apply = opt.apply.value_or(default_apply(r));
  const float inv = 1.0f / s;
  const FastEncoder enc(target, opt.element_mode.value_or(default_element_mode(r, target)));
  const bool clamp = clamps_elements(r);
  const bool ties_away = r == Recipe::mx_floor && opt.mx_ties_away;
  q.codes.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    float y = apply == ScaleApply::divide ? x[i] / s : x[i] * inv;
    if (std::fabs(y) > em) {
      ++q.clamped;
      if (clamp) y = std::copysign(em, y);
    }
    if (ties_away && std::isfinite(y)) {  // microxcaling "nearest": floor(|y| + 0.5), normals clamped
      const RoundedMagnitude m = round_magnitude(target, std::fabs(static_cast<double>(y)), RoundDir::nearest_ties_away);
      std::uint32_t c = m.overflow ? max_finite_code(target) : m.magnitude_code;
      const std::uint32_t sbit = 1u << (info(target).bits() - 1);
      if (std::signbit(y) && !(c == 0 && info(target).kind == SpecialKind::fnuz)) c |= sbit;
      q.codes[i] = static_cast<std::uint8_t>(c);
      continue;
    }
    q.codes[i] = static_cast<std::uint8_t>(enc(y));
  }
  return q;
}

std::vector<float> dequantize_block(std::span<const std::uint8_t> codes, Format target, float scale) {
  std::vector<float> out(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) out[i] = decode_f32(target, codes[i]) * scale;
  return out;
}

Quantized2D quantize_2d(Recipe r, std::span<const float> x, std::int64_t rows, std::int64_t cols,
                        std::int64_t group_rows, std::int64_t group_cols, Format target, const RecipeOptions& opt) {
  if (rows < 0 || cols < 0 || group_rows <= 0 || group_cols <= 0)
    throw std::invalid_argument("quantize_2d: rows/cols must be >= 0 and group sizes > 0");
  if (static_cast<std::int64_t>(x.size()) != rows * cols)
    throw std::invalid_argument("quantize_2d: x has " + std::to_string(x.size()) + " elements, expected rows*cols = " +
                                std::to_string(rows * cols));
  Quantized2D q;
  q.rows = rows; q.cols = cols; q.group_rows = group_rows; q.group_cols = group_cols;
  q.scale_rows = (rows + group_rows - 1) / group_rows;
  q.scale_cols = (cols + group_cols - 1) / group_cols;
  q.codes.assign(x.size(), 0);
  q.scales.assign(q.scale_rows * q.scale_cols, 0.0f);
  bool any_e8m0 = false;
  std::vector<std::uint8_t> bytes(q.scales.size(), 0);
  std::vector<float> tile;
  for (std::int64_t br = 0; br < q.scale_rows; ++br)
    for (std::int64_t bc = 0; bc < q.scale_cols; ++bc) {
      const std::int64_t r0 = br * group_rows, r1 = std::min(rows, r0 + group_rows);
      const std::int64_t c0 = bc * group_cols, c1 = std::min(cols, c0 + group_cols);
      tile.clear();
      for (std::int64_t i = r0; i < r1; ++i)
        for (std::int64_t j = c0; j < c1; ++j) tile.push_back(x[i * cols + j]);
      const QuantResult t = quantize_block(r, tile, target, opt);
      std::size_t k = 0;
      for (std::int64_t i = r0; i < r1; ++i)
        for (std::int64_t j = c0; j < c1; ++j) q.codes[i * cols + j] = t.codes[k++];
      q.scales[br * q.scale_cols + bc] = t.scale.scale;
      if (t.scale.e8m0) { any_e8m0 = true; bytes[br * q.scale_cols + bc] = *t.scale.e8m0; }
    }
  if (any_e8m0) q.scale_e8m0 = std::move(bytes);
  return q;
}

std::vector<float> dequantize_2d(const Quantized2D& q, Format target) {
  std::vector<float> out(q.codes.size());
  for (std::int64_t i = 0; i < q.rows; ++i)
    for (std::int64_t j = 0; j < q.cols; ++j) {
      const float s = q.scales[(i / q.group_rows) * q.scale_cols + j / q.group_cols];
      out[i * q.cols + j] = decode_f32(target, q.codes[i * q.cols + j]) * s;
    }
  return out;
}

std::vector<std::uint8_t> pack_fp4x2(std::span<const std::uint8_t> nibbles) {
  std::vector<std::uint8_t> out((nibbles.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < nibbles.size(); ++i) {
    if (nibbles[i] > 0xF) throw std::invalid_argument("pack_fp4x2: element " + std::to_string(i) + " is not a 4-bit code");
    out[i / 2] |= static_cast<std::uint8_t>((nibbles[i] & 0xF) << ((i % 2) * 4));
  }
  return out;
}

std::vector<std::uint8_t> unpack_fp4x2(std::span<const std::uint8_t> packed, std::size_t n) {
  if (n > packed.size() * 2) throw std::invalid_argument("unpack_fp4x2: n exceeds 2 * packed bytes");
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = (packed[i / 2] >> ((i % 2) * 4)) & 0xF;
  return out;
}

std::vector<std::int32_t> pack_ue8m0(std::span<const std::uint8_t> e) {
  std::vector<std::int32_t> out((e.size() + 3) / 4, 0);
  for (std::size_t i = 0; i < e.size(); ++i) {
    std::uint32_t w = static_cast<std::uint32_t>(out[i / 4]);
    w |= static_cast<std::uint32_t>(e[i]) << (8 * (i % 4));
    out[i / 4] = static_cast<std::int32_t>(w);
  }
  return out;
}

std::vector<std::uint8_t> unpack_ue8m0(std::span<const std::int32_t> words, std::size_t n) {
  if (n > words.size() * 4) throw std::invalid_argument("unpack_ue8m0: n exceeds 4 * words");
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(words[i / 4]) >> (8 * (i % 4)));
  return out;
}

std::vector<std::uint8_t> ue8m0_bytes_from_pow2_scales(std::span<const float> scales) {
  std::vector<std::uint8_t> out(scales.size());
  for (std::size_t i = 0; i < scales.size(); ++i) {
    const std::uint32_t b = std::bit_cast<std::uint32_t>(scales[i]);
    if ((b & 0x807FFFFFu) != 0)
      throw std::invalid_argument("ue8m0_bytes_from_pow2_scales: scale " + std::to_string(i) +
                                  " is negative or has a nonzero mantissa (not a normal power of two)");
    out[i] = static_cast<std::uint8_t>(b >> 23);
  }
  return out;
}

FnuzMigration migrate_fn_to_fnuz(std::span<const std::uint8_t> fn_codes) {
  FnuzMigration m;
  m.codes.assign(fn_codes.begin(), fn_codes.end());
  for (std::size_t i = 0; i < fn_codes.size(); ++i) {
    if (fn_codes[i] == 0x80) m.codes[i] = 0x00;
    if ((fn_codes[i] & 0x7F) == 0x7F) m.nan_indices.push_back(i);
  }
  return m;
}

std::uint8_t migrate_scale_e8m0(std::uint8_t byte) {
  if (byte == 0xFF) return 0xFF;
  return static_cast<std::uint8_t>(std::min(byte + 1, 254));
}

}  // namespace dsv4::formats
