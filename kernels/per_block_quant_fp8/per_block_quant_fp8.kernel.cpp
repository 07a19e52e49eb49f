// Per-block FP8 weight quantization kernel (ops.md §7.1): one 256-thread block per work item (one gs x gs tile, or
// the four K-adjacent tiles of one packed UE8M0 word column), grid-stride over items. Per tile: each thread takes
// elements tid, tid + blockDim, ... in row-major order inside the tile (consecutive threads read consecutive
// columns; the (row, column) of the next element is advanced incrementally, no division per element), a NaN-propagating thread amax, a butterfly __shfl_xor over all warpSize lanes, lane 0 of each wave
// writes its partial to LDS, and after a barrier thread 0 reduces blockDim/warpSize partials (the run-time wave
// count: 4 on wave 64, 8 on wave 32) and broadcasts through LDS. Every thread then derives the same recipe scale
// (kernels/quant_fp8/fp8_scale_rule.hpp) and casts its elements (kernels/common/fp8_codec.hpp).
// The wave64_lds_reduction variant reduces blockDim/64 partials: complete on wave 64, half the tile on wave 32.
#include <cmath>

#include "kernels/per_block_quant_fp8/per_block_launch_detail.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/plan_errors.hpp"
#include "kernels/quant_fp8/fp8_scale_rule.hpp"
#include "kernels/quant_fp8/quant_kernel_params.hpp"

namespace dsv4::kernels::block_quant {
namespace {

struct BParams {
  const void* w;
  std::uint8_t* wq;
  void* scales;
  long long n, k, gs, nb, kb, items_per_row, items, ld;
  int dtype;   // 0 bf16, 1 f16, 2 f32
  int layout;  // 0 row_major, 1 mn_major, 2 packed
  int tpi;     // tiles per item
  int rule;    // ScaleRule
  float floor, em;
  int divide, clamp, saturate, fnuz, buggy;
};

__device__ __forceinline__ float load_w(const BParams& p, long long i) { return quant::load_input<&BParams::w>(p, i); }

// amax over the block: wave butterfly, then the cross-wave stage in LDS (part[0..waves), part[kMaxWaves] = result).
// Three barriers: partials visible, result visible, and the result read before the next tile overwrites part.
__device__ __forceinline__ float block_amax(float v, port::lds_ptr<float> part, bool buggy) {
  const int tid = static_cast<int>(threadIdx.x);
  for (int off = warpSize / 2; off > 0; off >>= 1) v = fp8::fmax_nan(v, __shfl_xor(v, off));
  if (tid % warpSize == 0) part[tid / warpSize] = v;
  __syncthreads();
  if (tid == 0) {
    const int waves = static_cast<int>(blockDim.x) / (buggy ? 64 : warpSize);
    float m = part[0];
    for (int w = 1; w < waves; ++w) m = fp8::fmax_nan(m, part[w]);
    part[kBlockQuantMaxWaves] = m;
  }
  __syncthreads();
  const float r = part[kBlockQuantMaxWaves];
  __syncthreads();
  return r;
}

__global__ void __launch_bounds__(kBlockQuantThreads) per_block_quant_kernel(BParams p) {
  DSV4_LDS(float, part, kBlockQuantMaxWaves + 1);
  const int tid = static_cast<int>(threadIdx.x);
  const int nthr = static_cast<int>(blockDim.x);
  for (long long item = blockIdx.x; item < p.items; item += gridDim.x) {
    const long long tb = item / p.items_per_row;  // tile row (N block)
    const long long c = item % p.items_per_row;   // tile column (scale word column when packed)
    const long long r0 = tb * p.gs;
    const long long r1 = r0 + p.gs < p.n ? r0 + p.gs : p.n;
    std::uint32_t word = 0;
    for (int j = 0; j < p.tpi; ++j) {
      const long long kb = c * p.tpi + j;
      if (kb >= p.kb) break;  // uniform over the block
      const long long c0 = kb * p.gs;
      const long long cols = (c0 + p.gs < p.k ? c0 + p.gs : p.k) - c0;
      // Element e = tid + i·nthr of the tile is (row, col) = divmod(e, cols): advanced incrementally (no 64-bit
      // division per element): +nthr is +dr rows and +dc columns with a carry.
      const int icols = static_cast<int>(cols);
      const int dr = nthr / icols, dc = nthr % icols;
      const int rows = static_cast<int>(r1 - r0);
      float amax = 0.f;
      for (int r = tid / icols, cc = tid % icols; r < rows;) {
        amax = fp8::fmax_nan(amax, fabsf(load_w(p, (r0 + r) * p.k + c0 + cc)));
        r += dr;
        cc += dc;
        if (cc >= icols) cc -= icols, ++r;
      }
      amax = block_amax(amax, part, p.buggy != 0);
      const fp8::Scale sc = fp8::compute_scale(static_cast<ScaleRule>(p.rule), amax, p.floor, p.em);
      const float inv = 1.0f / sc.s;
      for (int r = tid / icols, cc = tid % icols; r < rows;) {
        const long long idx = (r0 + r) * p.k + c0 + cc;
        port::global_store(p.wq + idx, fp8::quantize_elem(load_w(p, idx), sc, inv, p.em, p.divide != 0,
                                                          p.clamp != 0, p.fnuz != 0, p.saturate != 0));
        r += dr;
        cc += dc;
        if (cc >= icols) cc -= icols, ++r;
      }
      if (p.layout == 2) {
        word |= sc.byte << (8 * j);
      } else if (tid == 0) {
        float* s = static_cast<float*>(p.scales);
        port::global_store(p.layout == 0 ? s + tb * p.kb + kb : s + kb * p.ld + tb, sc.s);
      }
      if (p.layout == 1 && tb == p.nb - 1)  // the last tile row zeroes the padding rows of its column
        for (long long r = p.nb + tid; r < p.ld; r += nthr) port::global_store(static_cast<float*>(p.scales) + kb * p.ld + r, 0.f);
    }
    if (p.layout == 2) {  // the tile scales broadcast to every row of the tile; the last tile row zeroes padding
      int* s = static_cast<int*>(p.scales);
      for (long long r = r0 + tid; r < r1; r += nthr) port::global_store(s + c * p.ld + r, static_cast<int>(word));
      if (tb == p.nb - 1)
        for (long long r = p.n + tid; r < p.ld; r += nthr) port::global_store(s + c * p.ld + r, 0);
    }
  }
}

}  // namespace

void launch_block_quant_kernel(const BlockQuantPlan& plan, const BlockQuantBuffers& io, port::Stream& stream) {
  BParams p{};
  p.w = io.w;
  p.wq = static_cast<std::uint8_t*>(io.w_q);
  p.scales = io.scales;
  p.n = plan.shape.n;
  p.k = plan.shape.k;
  p.gs = plan.options.group_size;
  p.nb = plan.n_blocks;
  p.kb = plan.k_blocks;
  p.items_per_row = plan.items_per_row;
  p.items = plan.items;
  p.ld = plan.scale_ld;
  p.dtype = quant::input_type_code(plan.shape.dtype);
  p.layout = static_cast<int>(plan.options.layout);
  p.tpi = plan.tiles_per_item;
  quant::set_recipe_params(p, plan);
  p.buggy = plan.options.variant == BlockQuantVariant::wave64_lds_reduction;
  const std::size_t esz = plan.shape.dtype == InputType::f32 ? 4 : 2;
  const auto nk = static_cast<std::size_t>(plan.shape.n * plan.shape.k);
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid)), port::Dim3(static_cast<unsigned>(plan.block)),
                         0, &stream, p.buggy ? "per_block_quant_fp8<wave64_lds_reduction>" : "per_block_quant_fp8",
                         {port::reads(io.w, nk * esz, "w"), port::writes(io.w_q, nk, "w_q"),
                          port::writes(io.scales, plan.scale_bytes, "w_s")}};
  with_plan_in_errors(plan.describe(), [&] { port::launch(per_block_quant_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::block_quant
