// FP8 sparse-attention KV-cache layouts (ops.md §3.1): byte offsets of a token's fields, validation of
// a cache tensor against its layout, dequantization of a slot into float64 (used by sparse_mla_decode
// and tests) and quantize-and-insert of a row (the kv_cache_write reference).
//
//   V32_FP8Sparse   (d_qk 576, 656 B/token, array of structures):
//       token t of a block at t*656: [512 x e4m3 NoPE][4 x fp32 scale, one per 128-wide tile][64 x bf16 RoPE]
//   MODEL1_FP8Sparse (d_qk 512, 584 B/token, blocked):
//       token data at t*576: [448 x e4m3 NoPE][64 x bf16 RoPE]; scales at block_size*576 + t*8:
//       7 x UE8M0 (one per 64-wide tile) + 1 pad byte. A block occupies >= block_size*584 bytes
//       (FlashMLA pads it up to a multiple of 576; the tensor's stride(0) says how many).
// A cache tensor is uint8 (or an fp8 view of the bytes) [num_blocks, block_size, 1, bytes_per_token];
// slot s = block s / block_size, token s % block_size. All multi-byte fields are little-endian.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/formats/format.hpp"
#include "reference/ops/common/kv_scale.hpp"
#include "reference/tensor/tensor.hpp"

namespace dsv4::kv {

enum class CacheLayout : std::uint8_t { V32_FP8Sparse, MODEL1_FP8Sparse };

std::optional<CacheLayout> parse_cache_layout(const std::string& s);
const char* cache_layout_name(CacheLayout l);

struct LayoutInfo {
  int d_qk;             // dequantized row width (NoPE + RoPE)
  int d_nope;           // fp8 part
  int d_rope;           // bf16 part
  int tile;             // elements per scale
  int n_tiles;          // scales per token
  int bytes_per_token;  // 656 or 584
};
const LayoutInfo& layout_info(CacheLayout l);

// Byte offsets inside one block for token t (0 <= t < block_size).
std::int64_t nope_offset(CacheLayout l, std::int64_t block_size, std::int64_t t);
std::int64_t scale_offset(CacheLayout l, std::int64_t block_size, std::int64_t t);  // first scale
std::int64_t rope_offset(CacheLayout l, std::int64_t block_size, std::int64_t t);
// Bytes a block needs (V32: bs*656; MODEL1: bs*584) and FlashMLA's padded block size (MODEL1:
// rounded up to a multiple of 576).
std::int64_t block_bytes_needed(CacheLayout l, std::int64_t block_size);
std::int64_t block_bytes_padded(CacheLayout l, std::int64_t block_size);

// How a cache's bytes are read back (ops.md §3.1 "Dequantization", known-bugs 13/14).
enum class KvDequant : std::uint8_t {
  exact,         // float64 fp8 value x scale (default: pure math)
  fp32_product,  // fp32(fp8) * fp32(scale) rounded to fp32
  bf16_product,  // bf16(fp8) * bf16(scale) rounded to bf16, as FlashMLA's kernels form it
};
std::optional<KvDequant> parse_kv_dequant(const std::string& s);

struct DequantOptions {
  formats::Format fp8 = formats::Format::e4m3fn;
  KvDequant mode = KvDequant::exact;
  bool e8m0_shift23 = false;  // emulate the `byte << 23` decode (known-bugs 13): 0x00 -> 0, 0xFF -> Inf
};

// A validated read-only view of a cache's bytes.
struct CacheView {
  CacheLayout layout;
  const std::uint8_t* base = nullptr;  // block 0, token 0
  std::int64_t num_blocks = 0, block_size = 0, block_stride = 0;
  std::int64_t num_slots() const { return num_blocks * block_size; }
};

// Validates `t` (argument `arg` of op `op`) against the layout: rank 4, [nb, bs, 1, bytes_per_token],
// a byte dtype (U8, F8_E4M3FN, F8_E4M3FNUZ), stride(3) == 1, stride(1) == bytes_per_token,
// stride(0) >= block_bytes_needed, and storage that covers every block. Throws InputError.
CacheView cache_view(const std::string& op, const std::string& arg, const Tensor& t, CacheLayout l);

// Dequantizes slot `slot` into row[0..d_qk): [NoPE (fp8 x scale) | RoPE (bf16)].
void dequantize_slot(const CacheView& c, std::int64_t slot, const DequantOptions& o, double* row);

// Whole cache -> F64 [num_blocks * block_size, d_qk].
Tensor dequantize_cache(const std::string& op, const Tensor& cache, CacheLayout l, const DequantOptions& o);

struct QuantizeOptions {
  ScaleRecipe recipe = ScaleRecipe::flashmla_kv_test;
  formats::Format fp8 = formats::Format::e4m3fn;
};

// Quantizes one row (d_qk float64 values, normally exact bf16 values) and writes its bytes for slot
// `slot` into the block storage at `base` (block_stride bytes per block): fp8 NoPE with per-tile
// scales chosen by the recipe, RoPE as bf16 (RNE), MODEL1 pad byte 0.
void quantize_insert_row(CacheLayout l, std::uint8_t* base, std::int64_t block_size, std::int64_t block_stride,
                         std::int64_t slot, const double* row, const QuantizeOptions& o);

}  // namespace dsv4::kv
