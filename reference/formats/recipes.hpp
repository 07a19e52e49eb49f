// Shared-scale quantization recipes (formats.md §5), packed layouts (§7) and the fn->fnuz weight
// migration (§6). Every recipe is named (Recipe / parse_recipe); the element cast of each recipe is an
// explicit EncodeMode (defaults listed in docs/formats.md, overridable through RecipeOptions).
// All arithmetic that the source kernels do in fp32 (amax, amax/fp8_max, 1/sf, x*inv or x/s) is done
// in fp32 here too, so the scale bytes and codes match those kernels bit for bit.
// Op references (per_token_group_quant_fp8, per_block_quant_fp8, kv cache writers, inv_rope quant)
// call quantize_block / quantize_2d.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "reference/formats/format.hpp"
#include "reference/formats/mode.hpp"

namespace dsv4::formats {

enum class Recipe : std::uint8_t {
  mx_floor,          // OCP MX: X = 2^(floor(log2 amax) - emax_elem); elements RNE, normals clamped
  dg_ceil,           // DeepGEMM: sf = max(amax,1e-4)/fp8_max, ceil_to_ue8m0 clamped [1,254]; x*(1/sf), torch cast
  dg_fp4,            // DeepGEMM fp4: sf = max(amax,1e-4)/6, ceil_to_ue8m0; x*(1/sf), fp4-ties-to-zero
  dsv4_act,          // DeepSeek-V4 act_quant: 2^log2_ceil(max(amax,1e-4)*fl(1/448)); clamp(x/s) then e4m3fn
  dsv4_fp4,          // V4 fp4 experts: 2^ceil(log2(max(amax,6*2^-126)/6)); fp4 RNE (nan=+0), block 32
  tk_ceil,           // TileKernels: exp = ((bits(sf)-1)>>23)+1-127, sf_inv = 2^-exp; x*sf_inv
  v3_triton,         // DeepSeek-V3 / vLLM Triton: exp2(ceil(log2(amax/fp8_max))) in float log2, eps 1e-10
  flashmla_kv_test,  // FlashMLA tests: sf = 2^ceil(log2(max(amax/448, 1e-4))) (floor on the SCALE); (x/sf).to()
  vllm_v4_kv,        // vLLM V4 KV writer: 2^ceil(log2(max(amax,1e-4)/fp8_max)); byte = exp+127 clamped [0,255]
  vllm_v4_invrope,   // vLLM fused inv-rope quant: UE8M0 ceil, amax floor 1e-10
  plain_fp32,        // no power-of-two rounding: s = max(amax, floor)/fp8_max, floor 1e-10
};

inline constexpr Recipe kAllRecipes[] = {Recipe::mx_floor, Recipe::dg_ceil,        Recipe::dg_fp4,
                                         Recipe::dsv4_act, Recipe::dsv4_fp4,       Recipe::tk_ceil,
                                         Recipe::v3_triton, Recipe::flashmla_kv_test, Recipe::vllm_v4_kv,
                                         Recipe::vllm_v4_invrope, Recipe::plain_fp32};

std::string_view recipe_name(Recipe r);                      // "mx-floor", "dg-ceil", ...
std::optional<Recipe> parse_recipe(std::string_view name);   // nullopt if unknown

// How the element is scaled before the cast.
enum class ScaleApply : std::uint8_t {
  divide,               // x / s   (vLLM, FlashMLA test, DeepSeek act_quant)
  multiply_reciprocal,  // x * fl(1/s)  (DeepGEMM, TileKernels)
};

struct RecipeOptions {
  std::optional<double> amax_floor;         // default per recipe: 1e-4, 1e-10 or 6*2^-126
  std::optional<double> elem_max;           // fp8_max; default max_finite(target), 224 for e4m3fnuz in vllm/v3 recipes
  std::optional<ScaleApply> apply;          // default per recipe (see Recipe comments)
  std::optional<EncodeMode> element_mode;   // default per recipe (docs/formats.md)
  bool mx_ties_away = false;                // mx-floor only: microxcaling "nearest" (ties away) instead of "even"
};

// The scale of one block.
struct BlockScale {
  float scale = 0;                        // fp32 value multiplying the codes (dequant: decode(code)*scale)
  std::optional<std::uint8_t> e8m0;       // stored UE8M0 byte when the recipe stores one
  bool power_of_two = false;              // scale is an exact power of two
};

struct QuantResult {
  std::vector<std::uint8_t> codes;  // one code per element (fp4: one nibble value per byte, unpacked)
  BlockScale scale;
  float amax = 0;                   // max |x| over the block in fp32 (NaN if the block has a NaN)
  std::size_t clamped = 0;          // elements whose |x/s| exceeded elem_max before the cast
};

// Target formats: fp8 recipes take e4m3fn, e4m3fnuz, e5m2, e5m2fnuz; dg-fp4, dsv4-fp4 take e2m1fn;
// mx-floor and tk-ceil take any of them. Throws std::invalid_argument for a format the recipe cannot use.
BlockScale compute_scale(Recipe r, float amax, Format target, const RecipeOptions& opt = {});
QuantResult quantize_block(Recipe r, std::span<const float> x, Format target, const RecipeOptions& opt = {});
// decode(code) * scale in fp32 (one rounding), for each code.
std::vector<float> dequantize_block(std::span<const std::uint8_t> codes, Format target, float scale);

// The element mode a recipe uses by default for a target (what quantize_block applies).
EncodeMode default_element_mode(Recipe r, Format target);
// The default block length along K for a recipe (128; 32 for mx-floor and dsv4-fp4; dg-fp4 128).
int default_group_size(Recipe r);

// 2-D quantization over [rows, cols] row-major: tiles of group_rows x group_cols (1x128 per-token-group,
// 128x128 per-block). Partial tiles at the edges use only the elements present.
struct Quantized2D {
  std::int64_t rows = 0, cols = 0, group_rows = 0, group_cols = 0;
  std::int64_t scale_rows = 0, scale_cols = 0;     // ceil(rows/group_rows), ceil(cols/group_cols)
  std::vector<std::uint8_t> codes;                 // [rows*cols]
  std::vector<float> scales;                       // [scale_rows*scale_cols] row-major
  std::vector<std::uint8_t> scale_e8m0;            // same shape when the recipe stores UE8M0, else empty
};
Quantized2D quantize_2d(Recipe r, std::span<const float> x, std::int64_t rows, std::int64_t cols,
                        std::int64_t group_rows, std::int64_t group_cols, Format target,
                        const RecipeOptions& opt = {});
inline Quantized2D quantize_per_token_group(Recipe r, std::span<const float> x, std::int64_t rows, std::int64_t cols,
                                            std::int64_t group, Format target, const RecipeOptions& opt = {}) {
  return quantize_2d(r, x, rows, cols, 1, group, target, opt);
}
inline Quantized2D quantize_per_block(Recipe r, std::span<const float> x, std::int64_t rows, std::int64_t cols,
                                      std::int64_t block, Format target, const RecipeOptions& opt = {}) {
  return quantize_2d(r, x, rows, cols, block, block, target, opt);
}
std::vector<float> dequantize_2d(const Quantized2D& q, Format target);

// ---- packed layouts (formats.md §7) ----
// fp4x2: element 2i in bits 3..0, element 2i+1 in bits 7..4; odd n leaves the last high nibble 0.
std::vector<std::uint8_t> pack_fp4x2(std::span<const std::uint8_t> nibbles);
std::vector<std::uint8_t> unpack_fp4x2(std::span<const std::uint8_t> packed, std::size_t n);
// DeepGEMM packed UE8M0: word p holds bytes of groups 4p..4p+3, byte j (little-endian) = group 4p+j;
// a partial last word is padded with 0 bytes.
std::vector<std::int32_t> pack_ue8m0(std::span<const std::uint8_t> exponents);
std::vector<std::uint8_t> unpack_ue8m0(std::span<const std::int32_t> words, std::size_t n);
// fp32 power-of-two scales -> UE8M0 bytes as DeepGEMM's pack_ue8m0_to_int does (bits>>23); throws
// std::invalid_argument if a scale has a nonzero mantissa or is negative.
std::vector<std::uint8_t> ue8m0_bytes_from_pow2_scales(std::span<const float> scales);

// ---- fn -> fnuz migration (formats.md §6, mode fn2fnuz-bitcopy) ----
struct FnuzMigration {
  std::vector<std::uint8_t> codes;         // fnuz codes: same bits, 0x80 rewritten to 0x00
  std::vector<std::size_t> nan_indices;    // positions of fn NaN codes 0x7F/0xFF (not handled by vLLM): flagged
};
FnuzMigration migrate_fn_to_fnuz(std::span<const std::uint8_t> fn_codes);
inline float migrate_scale_fp32(float s) { return s * 2.0f; }       // same bits = half the value
std::uint8_t migrate_scale_e8m0(std::uint8_t byte);                 // +1, clamped at 254 (0xFF stays 0xFF)

}  // namespace dsv4::formats
