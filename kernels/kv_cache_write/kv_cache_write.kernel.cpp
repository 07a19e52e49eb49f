// KV-cache writer kernel (plan: kv_write_plan.hpp). One wave per token, grid-stride over tokens. Per token: read the
// slot (int64 or int32); skip it when < 0 or >= num_slots (the python_negative_slot variant instead wraps -1 to the
// last slot, as Python indexing would); else lane l quantizes quads q = l, l+W, ... of the NoPE part: amax of the
// tile by a segmented butterfly over the tile's quads_per_tile lanes (NaN propagates), the recipe's scale exactly as
// reference/ops/common/kv_scale.hpp (fp32 quotient, bit-level ceil to a power of two, UE8M0 byte e+127 clamped),
// x / scale in fp32 and the e4m3 cast of fp8_codec.hpp (flashmla-kv-test: non-saturating; vllm-v4-kv and
// plain-fp32: clamp to +-fp8_max then saturating), four codes per 32-bit store. The quad's first lane of a tile
// stores the scale (fp32 for V32, one byte for MODEL1); lanes 0..31 copy the 64 RoPE values as 32 words (fp32 input
// rounded to bf16 by RNE); lane 0 writes the MODEL1 pad byte 0.
#include <cmath>

#include "kernels/kv_cache_write/kv_write_launch_detail.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"
#include "kernels/common/plan_errors.hpp"

namespace dsv4::kernels::kvw {
namespace {

struct KParams {
  const void* kv;
  const void* slots;
  std::uint8_t* cache;
  long long n, kv_ld, num_slots, block_size, block_stride;
  int kv_f32, slot_i64, model1, d_nope, nope_quads, qpt;
  int recipe;  // Recipe
  float fmax;
  int fnuz, saturate, buggy_negative;
};

__device__ __forceinline__ float fmax_nan(float a, float b) {
  if (a != a || b != b) return a != a ? a : b;
  return a < b ? b : a;
}

// ceil(log2(v)) for a positive normal fp32 v (the recipes' quotients are >= 1e-4 / 448, always normal).
__device__ __forceinline__ int ceil_log2_bits(float v) {
  const std::uint32_t b = fp8::f32_bits(v);
  return static_cast<int>((b >> 23) & 0xFFu) - 127 + ((b & 0x7FFFFFu) != 0 ? 1 : 0);
}

struct TileScale {
  float s;             // what the elements are divided by
  std::uint32_t bits;  // fp32 bits stored by V32
  std::uint32_t byte;  // UE8M0 byte stored by MODEL1
};

__device__ __forceinline__ TileScale tile_scale(const KParams& p, float amax) {
  if (amax != amax) return {fp8::bits_f32(0x7fc00000u), 0x7fc00000u, 0xFFu};
  if (amax > 3.4028234663852886e38f) return {fp8::bits_f32(0x7f800000u), 0x7f800000u, 0xFFu};
  int e = 0;
  if (p.recipe == static_cast<int>(Recipe::flashmla_kv_test)) {
    e = ceil_log2_bits(fmax_nan(amax / p.fmax, 1e-4f));
  } else if (p.recipe == static_cast<int>(Recipe::vllm_v4_kv)) {
    e = ceil_log2_bits(fmax_nan(amax, 1e-4f) / p.fmax);
  } else {
    const float sf = fmax_nan(amax, 1e-4f) / p.fmax;
    return {sf, fp8::f32_bits(sf), 0xFFu};
  }
  const float s = fp8::pow2f(e);
  const int byte = e + 127 < 0 ? 0 : (e + 127 > 255 ? 255 : e + 127);
  return {s, fp8::f32_bits(s), static_cast<std::uint32_t>(byte)};
}

__device__ __forceinline__ std::uint32_t encode(const KParams& p, float x, float s) {
  float y = x / s;
  if (p.saturate && y == y) y = y > p.fmax ? p.fmax : (y < -p.fmax ? -p.fmax : y);
  return fp8::encode_e4m3(y, p.fnuz != 0, p.saturate != 0);
}

__device__ __forceinline__ void load_quad(const KParams& p, long long off, float v[4]) {
  if (p.kv_f32) {
    const float4 f = port::global_load(reinterpret_cast<const float4*>(static_cast<const float*>(p.kv) + off));
    v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
  } else {
    const uint2 h = port::global_load(reinterpret_cast<const uint2*>(static_cast<const std::uint16_t*>(p.kv) + off));
    v[0] = common::bf16_to_f32(h.x & 0xFFFFu), v[1] = common::bf16_to_f32(h.x >> 16);
    v[2] = common::bf16_to_f32(h.y & 0xFFFFu), v[3] = common::bf16_to_f32(h.y >> 16);
  }
}

// Two RoPE values (elements d, d+1 of the row) as one little-endian word of two bf16 codes.
__device__ __forceinline__ std::uint32_t rope_word(const KParams& p, long long off) {
  if (p.kv_f32) {
    const float2 f = port::global_load(reinterpret_cast<const float2*>(static_cast<const float*>(p.kv) + off));
    return static_cast<std::uint32_t>(common::f32_to_bf16(f.x)) |
           (static_cast<std::uint32_t>(common::f32_to_bf16(f.y)) << 16);
  }
  return port::global_load(reinterpret_cast<const std::uint32_t*>(static_cast<const std::uint16_t*>(p.kv) + off));
}

__global__ void __launch_bounds__(256) kv_cache_write_kernel(KParams p) {
  const int lane = static_cast<int>(threadIdx.x) % warpSize;
  const int wave = static_cast<int>(threadIdx.x) / warpSize;
  const int wpb = static_cast<int>(blockDim.x) / warpSize;
  const long long stride = static_cast<long long>(gridDim.x) * wpb;
  for (long long tok = static_cast<long long>(blockIdx.x) * wpb + wave; tok < p.n; tok += stride) {
    long long slot = p.slot_i64 ? port::global_load(static_cast<const long long*>(p.slots) + tok)
                                : static_cast<long long>(port::global_load(static_cast<const int*>(p.slots) + tok));
    if (p.buggy_negative && slot < 0) slot += p.num_slots;
    if (slot < 0 || slot >= p.num_slots) continue;  // padding (or out of range): never written
    const long long blk = slot / p.block_size, t = slot % p.block_size;
    std::uint8_t* base = p.cache + blk * p.block_stride;
    std::uint8_t* nope = base + (p.model1 ? t * 576 : t * 656);
    std::uint8_t* sc = base + (p.model1 ? p.block_size * 576 + t * 8 : t * 656 + 512);
    std::uint8_t* rope = base + (p.model1 ? t * 576 + 448 : t * 656 + 528);
    const long long row = tok * p.kv_ld;
    for (int q0 = 0; q0 < p.nope_quads; q0 += warpSize) {  // uniform over the wave: every lane shuffles
      const int q = q0 + lane;
      const bool active = q < p.nope_quads;
      float v[4] = {0.f, 0.f, 0.f, 0.f};
      if (active) load_quad(p, row + 4LL * q, v);
      float amax = fmax_nan(fmax_nan(fabsf(v[0]), fabsf(v[1])), fmax_nan(fabsf(v[2]), fabsf(v[3])));
      for (int off = p.qpt / 2; off > 0; off >>= 1) amax = fmax_nan(amax, __shfl_xor(amax, off));
      if (!active) continue;
      const TileScale ts = tile_scale(p, amax);
      const std::uint32_t word = encode(p, v[0], ts.s) | (encode(p, v[1], ts.s) << 8) |
                                 (encode(p, v[2], ts.s) << 16) | (encode(p, v[3], ts.s) << 24);
      port::global_store(reinterpret_cast<std::uint32_t*>(nope + 4LL * q), word);
      if (q % p.qpt == 0) {
        const int tile = q / p.qpt;
        if (p.model1) port::global_store(sc + tile, static_cast<std::uint8_t>(ts.byte));
        else port::global_store(reinterpret_cast<std::uint32_t*>(sc + 4LL * tile), ts.bits);
      }
    }
    for (int w = lane; w < 32; w += warpSize)
      port::global_store(reinterpret_cast<std::uint32_t*>(rope + 4LL * w), rope_word(p, row + p.d_nope + 2LL * w));
    if (p.model1 && lane == 0) port::global_store(sc + 7, static_cast<std::uint8_t>(0));
  }
}

}  // namespace

void launch_kv_write_kernel(const KvWritePlan& plan, const KvWriteBuffers& io, port::Stream& stream) {
  KParams p{};
  p.kv = io.kv;
  p.slots = io.slots;
  p.cache = static_cast<std::uint8_t*>(io.cache);
  p.n = plan.shape.n_tokens;
  p.kv_ld = plan.kv_ld;
  p.num_slots = plan.num_slots;
  p.block_size = plan.shape.block_size;
  p.block_stride = plan.block_stride;
  p.kv_f32 = plan.shape.kv == KvType::f32;
  p.slot_i64 = plan.shape.slot == SlotType::i64;
  p.model1 = plan.shape.layout == Layout::model1;
  p.d_nope = plan.d_nope;
  p.nope_quads = plan.nope_quads;
  p.qpt = plan.quads_per_tile;
  p.recipe = static_cast<int>(plan.options.recipe);
  p.fmax = plan.fp8_max;
  p.fnuz = plan.options.fp8 == Fp8::e4m3fnuz;
  p.saturate = plan.saturate;
  p.buggy_negative = plan.options.variant == KvWriteVariant::python_negative_slot;
  const std::size_t kv_bytes =
      static_cast<std::size_t>(plan.shape.n_tokens * plan.kv_ld) * (plan.shape.kv == KvType::f32 ? 4 : 2);
  const std::size_t slot_bytes =
      static_cast<std::size_t>(plan.shape.n_tokens) * (plan.shape.slot == SlotType::i64 ? 8 : 4);
  const std::size_t cache_bytes = static_cast<std::size_t>(plan.shape.num_blocks * plan.block_stride);
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid)), port::Dim3(static_cast<unsigned>(plan.block)),
                         0, &stream, p.buggy_negative ? "kv_cache_write<python_negative_slot>" : "kv_cache_write",
                         {port::reads(io.kv, kv_bytes, "kv"), port::reads(io.slots, slot_bytes, "slot_mapping"),
                          port::reads_writes(io.cache, cache_bytes, "k_cache")}};
  with_plan_in_errors(plan.describe(), [&] { port::launch(kv_cache_write_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::kvw
