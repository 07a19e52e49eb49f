// Host plan of the block-scaled FP8 GEMM kernel (fp8_gemm_blockscaled, and fp8_einsum as a batch of heads):
//   d[b, m, n] = Σ_kb promote(sx[b, m, kb], sw[b, n / w_row_block, kb], P_kb) (+ c[b, m, n]),
//   P_kb = Σ_{k∈kb} x[b, m, k]·w[b, n, k] in fp32 FMA (exact fp8 products), kb = 128-wide K blocks.
// Promotion (error_model.md, DeepGEMM's two-level accumulation, the reference's default): each block's fp32
// partial is scaled once and added to an fp32 accumulator: acc += fl(fl(sx·sw)·P_kb) for fp32 scales; for UE8M0
// scales the power-of-two scaling is applied exactly through the exponent (ldexpf), so it costs no rounding.
//
// One workgroup of 256 threads owns one BM x BN output tile of one batch (grid = [N-tiles, M-tiles, batch]); each
// thread a 4x4 micro-tile. The K loop walks 128-wide scale blocks; inside a block, K-steps of k_step elements of x and
// w are decoded (fp8 flavour of the ARCH profile: gfx942 e4m3fnuz, gfx950/sm_90 e4m3fn; an operand of the other
// flavour is refused) into fp32 LDS, zero-filled past M, N and K (so K need not be a multiple of 128 or of k_step).
// Tiles per arch: BM x BN from M (16x256, 32x128, 64x64); k_step the largest of 128/64/32 whose LDS fits half the
// profile's per-block LDS (two resident workgroups). No workspace. The plan is the single source of these numbers.
// Pure C++, no device code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::bsgemm {

enum class Fp8 { e4m3fn, e4m3fnuz };
enum class ScaleKind { f32, ue8m0, packed_ue8m0 };  // F32 value; one UE8M0 byte; I32 word with 4 UE8M0 bytes
enum class OutType { bf16, f32 };

// Deliberately buggy variants (planted bugs for the tests and the bug zoo); never the default.
enum class BsVariant {
  fixed,
  scale_per_tile,   // applies the first K block's scales to every block (per tile instead of per 128-K block)
  e8m0_shift23,     // decodes UE8M0 as bits << 23 (0x00 -> 0, 0xFF -> +Inf; known-bugs #13)
};

const char* variant_name(BsVariant v);
bool parse_variant(const std::string& s, BsVariant& out);
const char* scale_kind_name(ScaleKind k);

struct BsGemmShape {
  std::int64_t batch = 1, m = 1, n = 1, k = 128;
  Fp8 fp8 = Fp8::e4m3fn;          // dtype of x and w (they must agree)
  ScaleKind x_scale = ScaleKind::f32, w_scale = ScaleKind::f32;
  std::int64_t w_row_block = 128; // 128: w_sf per 128x128 block; 1: per row of w (SM100 / recipe 1,1,128)
  bool has_c = false;             // fp32 accumulator input
  OutType out = OutType::bf16;
};

struct BsGemmOptions {
  BsVariant variant = BsVariant::fixed;
  int wave_size = 0;  // 0: the profile's; the kernel uses no wave operations (reported only)
};

inline constexpr int kBlockThreads = 256;
inline constexpr int kMicro = 4;          // micro-tile rows and columns per thread
inline constexpr int kScaleBlock = 128;   // K elements per scale block
inline constexpr int kLdsPad = 4;         // floats of padding per staged K row

struct LdsPhase {
  std::string name;
  std::size_t bytes;
};

struct BsGemmPlan {
  bool ok = false;
  std::string reason;  // when !ok: the rule broken, with the numbers

  BsGemmShape shape;
  BsGemmOptions options;
  port::Arch arch = port::Arch::gfx950;
  Fp8 arch_fp8 = Fp8::e4m3fn;  // the flavour this arch's kernel decodes
  int wave_size = 64;

  // Tiling.
  int bm = 64, bn = 64;        // output tile (M rows x N columns) per workgroup
  int k_step = 128;            // K elements staged per LDS pass (divides 128)
  std::int64_t k_blocks = 1;   // ceil(K / 128) scale blocks
  std::int64_t tiles_m = 1, tiles_n = 1;
  std::int64_t grid[3] = {1, 1, 1};  // {tiles_n, tiles_m, batch}
  int block = kBlockThreads;

  // LDS (one phase: the staged K-step of x and w in fp32, [k_step][bm + pad] and [k_step][bn + pad]).
  std::size_t lds_bytes = 0;
  std::size_t lds_capacity = 0;
  std::size_t lds_budget = 0;  // half the capacity: the tile rule's target
  std::size_t workspace_bytes = 0;

  std::vector<LdsPhase> lds_phases() const;
  std::string describe() const;
};

// The plan of a shape on an arch profile; never throws for a bad shape (ok = false with the reason).
BsGemmPlan make_plan(const BsGemmShape& shape, const port::ArchProfile& arch, const BsGemmOptions& opt = {});
bool can_implement(const BsGemmShape& shape, const port::ArchProfile& arch, const BsGemmOptions& opt = {});

// LDS bytes of a tile choice (the plan's formula, exposed for the property tests).
std::size_t lds_bytes_for(int bm, int bn, int k_step);

// The plan sweep this kernel offers the AMD budget check (bs_gemm_plan_sweep.cpp).
PlanSweep bs_gemm_plan_sweep();

}  // namespace dsv4::kernels::bsgemm
