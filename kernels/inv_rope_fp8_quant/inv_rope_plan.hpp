// Host plan of the fused inverse RoPE + FP8 quantization kernel of the V4 attention output (ops.md §7.2, vLLM
// fused_inv_rope_fp8_quant): o [T, H, hd] bf16 -> per (t, h): inverse rotation of the last rope_dim dims at
// positions[t] (pairing: interleaved GPT-J = the V4 output site, or neox; ops.md §7.3), then 1 x group_size
// quantization with the named recipe (default vllm-v4-invrope: UE8M0 ceil). Outputs: codes stored [G, T, D]
// (D = (H/G)·hd, head h in group g = h / (H/G) at column offset (h % (H/G))·hd) and scales MN-major
// [G, D/gs, align(T,4)] fp32 (mn_major) or [G, H/G, align(T,4)] int32 of 4 UE8M0 bytes per head (packed_ue8m0),
// padding rows written 0.
// One wave per work item = one (t, h) head, grid-stride over T·H items; the wave walks the head's hd/gs groups,
// lane l takes dims l, l + W, ... (W = warpSize at run time), amax by butterfly over all W lanes. The rotation is
// computed in float64 from the bf16 input and the fp32 cache (both products exact) and rounded once to fp32 -
// the reference's intermediate bit for bit. No LDS, no workspace.
//
// RoPE variants of ops.md §7.3 for this op: interleaved and neox pairing (both implemented). The compressor
// position rule (pos//r)·r and the first-64-dims site (V3.2 indexer) are not variants of this op (its reference
// rotates the last rope_dim dims at positions[t]); callers pass the already-adjusted position. Pure C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/port/arch.hpp"
#include "kernels/quant_fp8/quant_plan.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::inv_rope {

using quant::Fp8;
using quant::ScaleLayout;
using quant::ScaleRule;

enum class Pairing { interleaved, neox };

// Deliberately buggy variants for the bug zoo; never the default.
enum class InvRopeVariant {
  fixed,
  forward_rotation,  // applies the forward rotation (a·c − b·s, a·s + b·c) instead of its inverse
};

struct InvRopeShape {
  std::int64_t t = 1, h = 8, head_dim = 512, max_pos = 1;
  bool positions_i32 = false;  // positions are I32 (else I64)
};

struct InvRopeOptions {
  std::string recipe = "vllm-v4-invrope";
  std::optional<Fp8> fp8;         // unset: the arch profile's flavour
  std::optional<double> fp8_max;  // unset: the recipe's default
  ScaleLayout layout = ScaleLayout::mn_major;
  std::int64_t group_size = 128;
  std::int64_t n_groups = 8;
  std::int64_t rope_dim = 64;
  Pairing pairing = Pairing::interleaved;
  InvRopeVariant variant = InvRopeVariant::fixed;
  int wave_size = 0;  // 0: the profile's; 32 / 64 when a simulator overrides it
};

inline constexpr int kInvRopeBlockThreads = 256;

struct InvRopePlan {
  bool ok = false;
  std::string reason;

  InvRopeShape shape;
  InvRopeOptions options;
  port::Arch arch = port::Arch::gfx950;
  Fp8 fp8 = Fp8::e4m3fn;

  ScaleRule rule = ScaleRule::log2_ceil;
  float amax_floor = 1e-10f;
  float elem_max = 448.f;
  bool divide = true, clamp = true, saturate = true, pow2_scale = true;

  std::int64_t heads_per_group = 1;  // H / G
  std::int64_t d = 512;              // (H/G)·hd: a row of the grouped output
  std::int64_t groups_per_head = 4;  // hd / gs
  std::int64_t scale_cols = 4;       // D / gs (mn_major) or H/G words (packed)
  std::int64_t t_aligned = 4;        // align(T, 4)
  std::int64_t items = 0;            // T·H
  int wave_size = 64;
  int waves_per_block = 4;
  std::int64_t grid = 1;
  int block = kInvRopeBlockThreads;

  std::size_t out_bytes = 0;        // G·T·D fp8 codes
  std::size_t scale_bytes = 0;      // G·scale_cols·align(T,4)·4
  std::size_t lds_bytes = 0;        // 0: no LDS
  std::size_t workspace_bytes = 0;  // 0: no workspace

  std::string describe() const;
};

InvRopePlan make_inv_rope_plan(const InvRopeShape& shape, const port::ArchProfile& arch,
                               const InvRopeOptions& opt = {});
bool can_implement(const InvRopeShape& shape, const port::ArchProfile& arch, const InvRopeOptions& opt = {});

const char* variant_name(InvRopeVariant v);
std::optional<InvRopeVariant> parse_inv_rope_variant(const std::string& s);
// "interleaved" | "neox"; nullopt for anything else.
std::optional<Pairing> parse_pairing(const std::string& s);

// The plan sweep this kernel offers the AMD budget check (inv_rope_plan_sweep.cpp).
PlanSweep inv_rope_plan_sweep();

}  // namespace dsv4::kernels::inv_rope
