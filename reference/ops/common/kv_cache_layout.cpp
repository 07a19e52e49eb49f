// KV-cache layouts: offsets, validation, dequantize and quantize-insert; see kv_cache_layout.hpp.
#include "reference/ops/common/kv_cache_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "reference/formats/rne.hpp"
#include "reference/ops/common/checks.hpp"

namespace dsv4::kv {

namespace {
constexpr LayoutInfo kV32{576, 512, 64, 128, 4, 656};
constexpr LayoutInfo kModel1{512, 448, 64, 64, 7, 584};
constexpr std::int64_t kModel1TokenData = 576;  // 448 fp8 + 64 bf16

double round_bf16(double x) {
  return formats::decode(formats::Format::bf16, formats::encode_ieee_rne(formats::Format::bf16, x));
}

double load_bf16(const std::uint8_t* p) {
  const std::uint32_t c = static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8);
  return static_cast<double>(std::bit_cast<float>(c << 16));
}

void store_bf16(std::uint8_t* p, double v) {
  const std::uint32_t c = formats::encode_ieee_rne(formats::Format::bf16, v);
  p[0] = static_cast<std::uint8_t>(c & 0xFF);
  p[1] = static_cast<std::uint8_t>(c >> 8);
}

float load_f32(const std::uint8_t* p) {
  std::uint32_t c;
  std::memcpy(&c, p, 4);  // little-endian host (x86-64, aarch64)
  return std::bit_cast<float>(c);
}

void store_f32(std::uint8_t* p, float v) {
  const auto c = std::bit_cast<std::uint32_t>(v);
  std::memcpy(p, &c, 4);
}

// fp8 code -> value table, per format.
struct Fp8Table {
  double v[256];
  explicit Fp8Table(formats::Format f) {
    for (int i = 0; i < 256; ++i) v[i] = formats::decode(f, static_cast<std::uint32_t>(i));
  }
};
const Fp8Table& fp8_table(formats::Format f) {
  static const Fp8Table fn(formats::Format::e4m3fn), fnuz(formats::Format::e4m3fnuz);
  return f == formats::Format::e4m3fnuz ? fnuz : fn;
}
}  // namespace

std::optional<CacheLayout> parse_cache_layout(const std::string& s) {
  if (s == "V32_FP8Sparse") return CacheLayout::V32_FP8Sparse;
  if (s == "MODEL1_FP8Sparse") return CacheLayout::MODEL1_FP8Sparse;
  return std::nullopt;
}

const char* cache_layout_name(CacheLayout l) {
  return l == CacheLayout::V32_FP8Sparse ? "V32_FP8Sparse" : "MODEL1_FP8Sparse";
}

const LayoutInfo& layout_info(CacheLayout l) { return l == CacheLayout::V32_FP8Sparse ? kV32 : kModel1; }

std::int64_t nope_offset(CacheLayout l, std::int64_t, std::int64_t t) {
  return l == CacheLayout::V32_FP8Sparse ? t * 656 : t * kModel1TokenData;
}
std::int64_t scale_offset(CacheLayout l, std::int64_t bs, std::int64_t t) {
  return l == CacheLayout::V32_FP8Sparse ? t * 656 + 512 : bs * kModel1TokenData + t * 8;
}
std::int64_t rope_offset(CacheLayout l, std::int64_t, std::int64_t t) {
  return l == CacheLayout::V32_FP8Sparse ? t * 656 + 528 : t * kModel1TokenData + 448;
}
std::int64_t block_bytes_needed(CacheLayout l, std::int64_t bs) { return bs * layout_info(l).bytes_per_token; }
std::int64_t block_bytes_padded(CacheLayout l, std::int64_t bs) {
  const std::int64_t n = block_bytes_needed(l, bs);
  if (l == CacheLayout::V32_FP8Sparse) return n;
  return (n + kModel1TokenData - 1) / kModel1TokenData * kModel1TokenData;
}

std::optional<KvDequant> parse_kv_dequant(const std::string& s) {
  if (s == "exact") return KvDequant::exact;
  if (s == "fp32_product") return KvDequant::fp32_product;
  if (s == "bf16_product") return KvDequant::bf16_product;
  return std::nullopt;
}

CacheView cache_view(const std::string& op, const std::string& arg, const Tensor& t, CacheLayout l) {
  const LayoutInfo& li = layout_info(l);
  checks::dtype_in(op, arg, t, {DType::U8, DType::F8_E4M3FN, DType::F8_E4M3FNUZ});
  checks::rank(op, arg, t, 4, "[num_blocks, page_block_size, 1, bytes_per_token]");
  checks::dim_eq(op, arg, t, 2, 1, "h_kv");
  checks::dim_eq(op, arg, t, 3, li.bytes_per_token, fmt::format("bytes_per_token of {}", cache_layout_name(l)));
  checks::require(t.size(1) >= 1, op, arg, "page_block_size must be >= 1");
  checks::require(t.stride(3) == 1, op, arg, "the byte dimension must be contiguous (stride(3) == 1)");
  checks::require(t.size(1) == 1 || t.stride(1) == li.bytes_per_token, op, arg,
                  fmt::format("stride(1) must equal bytes_per_token = {}, got {}", li.bytes_per_token, t.stride(1)));
  const std::int64_t need = block_bytes_needed(l, t.size(1));
  checks::require(t.size(0) <= 1 || t.stride(0) >= need, op, arg,
                  fmt::format("stride(0) (block bytes) must be >= {} for {} with block size {}, got {}", need,
                              cache_layout_name(l), t.size(1), t.stride(0)));
  const std::int64_t end = t.offset() + (t.size(0) > 0 ? (t.size(0) - 1) * t.stride(0) + need : 0);
  checks::require(end <= static_cast<std::int64_t>(t.storage_bytes()), op, arg,
                  fmt::format("storage of {} bytes does not hold {} blocks of {} bytes ({} layout)", t.storage_bytes(),
                              t.size(0), need, cache_layout_name(l)));
  CacheView v;
  v.layout = l;
  v.base = t.numel() > 0 ? reinterpret_cast<const std::uint8_t*>(t.data()) : nullptr;
  v.num_blocks = t.size(0);
  v.block_size = t.size(1);
  v.block_stride = t.size(0) > 1 ? t.stride(0) : need;
  return v;
}

void dequantize_slot(const CacheView& c, std::int64_t slot, const DequantOptions& o, double* row) {
  const LayoutInfo& li = layout_info(c.layout);
  const std::int64_t blk = slot / c.block_size, t = slot % c.block_size;
  const std::uint8_t* b = c.base + blk * c.block_stride;
  const std::uint8_t* nope = b + nope_offset(c.layout, c.block_size, t);
  const std::uint8_t* sc = b + scale_offset(c.layout, c.block_size, t);
  const std::uint8_t* rope = b + rope_offset(c.layout, c.block_size, t);
  const Fp8Table& tab = fp8_table(o.fp8);
  for (int tile = 0; tile < li.n_tiles; ++tile) {
    double s;
    if (c.layout == CacheLayout::V32_FP8Sparse) {
      s = load_f32(sc + 4 * tile);
    } else {
      const std::uint8_t byte = sc[tile];
      if (o.e8m0_shift23)
        s = byte == 0 ? 0.0 : byte == 0xFF ? HUGE_VAL : std::ldexp(1.0, byte - 127);
      else
        s = formats::decode(formats::Format::e8m0fnu, byte);
    }
    if (o.mode == KvDequant::bf16_product) s = round_bf16(s);
    for (int k = 0; k < li.tile; ++k) {
      const int e = tile * li.tile + k;
      double v = tab.v[nope[e]] * s;  // exact in float64 (4-bit x 24-bit significands)
      if (o.mode == KvDequant::fp32_product) v = static_cast<float>(v);
      else if (o.mode == KvDequant::bf16_product) v = round_bf16(v);
      row[e] = v;
    }
  }
  for (int k = 0; k < li.d_rope; ++k) row[li.d_nope + k] = load_bf16(rope + 2 * k);
}

Tensor dequantize_cache(const std::string& op, const Tensor& cache, CacheLayout l, const DequantOptions& o) {
  const CacheView c = cache_view(op, "k_cache", cache, l);
  const LayoutInfo& li = layout_info(l);
  Tensor out = Tensor::empty(DType::F64, {c.num_slots(), li.d_qk});
  double* p = out.ptr<double>();
#pragma omp parallel for schedule(static) if (c.num_slots() > 256)
  for (std::int64_t s = 0; s < c.num_slots(); ++s) dequantize_slot(c, s, o, p + s * li.d_qk);
  return out;
}

void quantize_insert_row(CacheLayout l, std::uint8_t* base, std::int64_t bs, std::int64_t block_stride,
                         std::int64_t slot, const double* row, const QuantizeOptions& o) {
  const LayoutInfo& li = layout_info(l);
  const std::int64_t blk = slot / bs, t = slot % bs;
  std::uint8_t* b = base + blk * block_stride;
  std::uint8_t* nope = b + nope_offset(l, bs, t);
  std::uint8_t* sc = b + scale_offset(l, bs, t);
  std::uint8_t* rope = b + rope_offset(l, bs, t);
  const double fmax = kv_fp8_max(o.fp8);
  for (int tile = 0; tile < li.n_tiles; ++tile) {
    const double* x = row + tile * li.tile;
    double amax = 0;
    bool nan = false;
    for (int k = 0; k < li.tile; ++k) {
      if (std::isnan(x[k])) nan = true;
      amax = std::max(amax, std::fabs(x[k]));
    }
    if (nan) amax = std::numeric_limits<double>::quiet_NaN();
    const TileScale ts = tile_scale(o.recipe, amax, o.fp8);
    if (l == CacheLayout::V32_FP8Sparse) store_f32(sc + 4 * tile, ts.stored_f32);
    else sc[tile] = ts.e8m0;
    for (int k = 0; k < li.tile; ++k) {
      // Element: fp32(x / scale) (exact for power-of-two scales), then the recipe's cast: FlashMLA's
      // test casts with torch .to() (rne-nonsat); vLLM clamps to +-fp8_max first (rne-satfinite).
      double y = to_f32(x[k] / ts.scale);
      std::uint8_t code;
      if (o.recipe == ScaleRecipe::flashmla_kv_test) {
        code = encode_fp8(o.fp8, y, /*saturate=*/false);
      } else {
        if (!std::isnan(y)) y = std::clamp(y, -fmax, fmax);
        code = encode_fp8(o.fp8, y, /*saturate=*/true);
      }
      nope[tile * li.tile + k] = code;
    }
  }
  if (l == CacheLayout::MODEL1_FP8Sparse) sc[7] = 0;  // pad byte
  for (int k = 0; k < li.d_rope; ++k) store_bf16(rope + 2 * k, row[li.d_nope + k]);
}

}  // namespace dsv4::kv
