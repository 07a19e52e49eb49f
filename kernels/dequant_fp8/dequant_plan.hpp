// Host plan of the FP8 dequantization kernel: x_q [M, K] e4m3fn/e4m3fnuz codes + block scales -> y [M, K] bf16 or
// fp32, y = decode(code) · decode(scale), rounded once (RNE) to the output type. There is no registry op for it
// (tests compare with reference/formats decoding in float64). Scales:
//   scale type   f32 (fp32 values), e8m0 (one UE8M0 byte per scale), packed_ue8m0 (4 UE8M0 bytes per int32, byte
//                j = group 4w + j, little-endian, MN-major words [ceil(G/4), align(R,4)]);
//   granularity  token_group (1 x gs: R = M scale rows) or block (gs x gs: R = ceil(M/gs) rows);
//   layout       row_major [R, G] or mn_major (stride(-2) = 1, stride(-1) = align(R, 4)); packed is MN-major.
// UE8M0 decodes exactly (formats.md §2 e8m0-exact): 0x00 = 2^-127 (never 0), 0xFF = NaN (never +Inf), via
// fp8_codec.hpp's ue8m0_to_f32 (known-bugs #12/#13/#14 are the wrong ways; the shift23 variant emulates #13 for
// the bug zoo). One thread per element, grid-stride; the product is formed in float64 (exact: 4 x 24 bits) and
// rounded once, so bf16 output has no double rounding. No LDS, no workspace. Pure C++.
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

namespace dsv4::kernels::dequant {

using quant::Fp8;
using quant::ScaleLayout;

enum class ScaleType { f32, e8m0, packed_ue8m0 };
enum class Granularity { token_group, block };
enum class OutType { bf16, f32 };

enum class DequantVariant {
  fixed,
  shift23,  // known-bugs #13: UE8M0 decoded as fp32 bits (byte << 23): 0x00 -> +0, 0xFF -> +Inf
};

struct DequantShape {
  std::int64_t m = 1, k = 128;
};

struct DequantOptions {
  std::optional<Fp8> fp8;  // unset: the arch profile's flavour (gfx942 -> e4m3fnuz; gfx950 / sm_90 -> e4m3fn)
  ScaleType scale_type = ScaleType::f32;
  Granularity granularity = Granularity::token_group;
  ScaleLayout layout = ScaleLayout::row_major;  // row_major or mn_major (packed_ue8m0 scale type: mn_major only)
  std::int64_t group_size = 128;
  OutType out = OutType::bf16;
  DequantVariant variant = DequantVariant::fixed;
};

inline constexpr int kDequantBlockThreads = 256;
inline constexpr std::int64_t kDequantMaxGroup = 4096;

struct DequantPlan {
  bool ok = false;
  std::string reason;

  DequantShape shape;
  DequantOptions options;
  port::Arch arch = port::Arch::gfx950;
  Fp8 fp8 = Fp8::e4m3fn;

  std::int64_t groups = 0;      // ceil(K / gs) scale columns (before packing)
  std::int64_t scale_rows = 0;  // M (token_group) or ceil(M / gs) (block)
  std::int64_t scale_cols = 0;  // groups, or ceil(groups / 4) words (packed)
  std::int64_t scale_ld = 0;    // row_major: scale_cols; mn_major / packed: align(scale_rows, 4)
  std::size_t scale_elem_bytes = 4;
  std::size_t scale_bytes = 0;  // bytes the kernel may read
  std::size_t out_bytes = 0;
  std::int64_t elements = 0;
  std::int64_t grid = 1;
  int block = kDequantBlockThreads;
  std::size_t lds_bytes = 0, workspace_bytes = 0;

  std::string describe() const;
};

DequantPlan make_dequant_plan(const DequantShape& shape, const port::ArchProfile& arch, const DequantOptions& opt = {});
bool can_implement(const DequantShape& shape, const port::ArchProfile& arch, const DequantOptions& opt = {});

// The plan sweep this kernel offers the AMD budget check (dequant_plan_sweep.cpp).
PlanSweep dequant_plan_sweep();

}  // namespace dsv4::kernels::dequant
