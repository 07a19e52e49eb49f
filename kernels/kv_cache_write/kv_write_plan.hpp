// Host plan of the KV-cache writer (ops.md §3.1, formats.md §5; reference/ops/kv_cache_write): quantize each
// token's latent row to e4m3 with one scale per tile and insert it, with its bf16 RoPE part, at the token's slot
// of an FP8 sparse cache:
//   V32_FP8Sparse    656 B/token: [512 fp8 NoPE][4 x fp32 scale, 128-wide tiles][64 x bf16 RoPE] per token;
//   MODEL1_FP8Sparse 584 B/token: per block, bs x [448 fp8 | 64 bf16] (576 B) then bs x 8 B scales (7 UE8M0,
//                    64-wide tiles, + pad byte 0).
// Work: one wave per token (grid-stride loop). Lane l owns "quads" (4 consecutive NoPE elements, one 32-bit store of
// four codes) q = l, l+W, ...; a tile is tile/4 consecutive quads (32 for V32, 16 for MODEL1), which divides the
// wave (32 or 64 lanes), so a tile's amax is a segmented butterfly over its quads' lanes. Slots < 0 (padding) and
// slots >= num_slots are skipped: the kernel never writes outside the token's own bytes. Duplicate slots are a
// precondition violation (the runner refuses them: the reference's "later row wins" is an order a parallel writer
// does not give). No LDS, no workspace. Pure C++, no device code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::kvw {

enum class Layout { v32, model1 };
enum class Recipe { flashmla_kv_test, vllm_v4_kv, plain_fp32 };
enum class KvType { bf16, f32 };
enum class SlotType { i64, i32 };
enum class Fp8 { e4m3fn, e4m3fnuz };

// Deliberately buggy variants for the bug zoo; never the default.
enum class KvWriteVariant {
  fixed,
  python_negative_slot,  // slot -1 treated as Python's "last element": writes the cache's last slot
};

struct KvWriteShape {
  Layout layout = Layout::model1;
  std::int64_t n_tokens = 1;
  std::int64_t num_blocks = 1, block_size = 64;
  std::int64_t block_stride = 0;  // bytes between blocks; 0 = the layout's padded block bytes
  std::int64_t kv_ld = 0;         // elements between kv rows; 0 = d_qk
  KvType kv = KvType::bf16;
  SlotType slot = SlotType::i64;
};

struct KvWriteOptions {
  Recipe recipe = Recipe::vllm_v4_kv;
  Fp8 fp8 = Fp8::e4m3fn;
  KvWriteVariant variant = KvWriteVariant::fixed;
  int wave_size = 0;  // 0: the profile's; 32 / 64 when a simulator overrides it
};

inline constexpr int kKvWriteBlockThreads = 256;

struct KvWritePlan {
  bool ok = false;
  std::string reason;  // when !ok: the rule broken

  KvWriteShape shape;
  KvWriteOptions options;
  port::Arch arch = port::Arch::gfx950;

  // Layout constants (ops.md §3.1).
  int d_qk = 512, d_nope = 448, d_rope = 64, tile = 64, n_tiles = 7, bytes_per_token = 584;
  std::int64_t block_stride = 0;      // resolved
  std::int64_t block_bytes_needed = 0;
  std::int64_t num_slots = 0;
  std::int64_t kv_ld = 0;             // resolved

  // Recipe, resolved (reference/ops/common/kv_scale.hpp).
  float fp8_max = 448.f;  // 448 e4m3fn, 224 e4m3fnuz (vLLM)
  bool saturate = true;   // vllm-v4-kv / plain-fp32: clamp to +-fp8_max then rne-satfinite; flashmla: torch .to()

  // Work decomposition.
  int wave_size = 64;
  int waves_per_block = 4;
  int quads_per_tile = 16;
  int nope_quads = 112;
  std::int64_t grid = 1;
  int block = kKvWriteBlockThreads;
  std::size_t lds_bytes = 0;
  std::size_t workspace_bytes = 0;

  // Bytes a launch moves (kv rows and slots read, one token's cache bytes written per row).
  double bytes_moved() const;
  std::string describe() const;
};

KvWritePlan make_kv_write_plan(const KvWriteShape& shape, const port::ArchProfile& arch, const KvWriteOptions& opt = {});
bool can_implement(const KvWriteShape& shape, const port::ArchProfile& arch, const KvWriteOptions& opt = {});

const char* layout_name(Layout l);
const char* recipe_name(Recipe r);
const char* variant_name(KvWriteVariant v);
std::optional<Recipe> parse_recipe(const std::string& s);
std::optional<KvWriteVariant> parse_kv_write_variant(const std::string& s);

// The plan sweep this kernel offers the AMD budget check (kv_write_plan_sweep.cpp).
PlanSweep kv_write_plan_sweep();

}  // namespace dsv4::kernels::kvw
