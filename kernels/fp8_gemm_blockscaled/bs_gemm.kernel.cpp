// Block-scaled FP8 GEMM kernel (portable fp32 FMA, no MMA): one workgroup per (N-tile, M-tile, batch); 256 threads,
// each a 4x4 micro-tile of the BM x BN output tile. For every 128-wide K block:
//   1. k-steps of plan.k_step: x[BM, k_step] and w[BN, k_step] fp8 codes are decoded (the arch's flavour, through
//      kernels/common/fp8_codec.hpp) into fp32 LDS laid out [k][row] (zero past M, N, K), barrier, each thread
//      accumulates its 4x4 fp32 partial P_kb (fp8 products are exact in fp32), barrier;
//   2. promotion: acc += (sx·sw)·P_kb for fp32 scales, or P_kb·2^(ex+ew) via ldexpf for UE8M0 (exact; 0xFF = NaN).
// Epilogue: + c (fp32), one RNE rounding to bf16 (or fp32 store), rows < M, columns < N only.
// Planted variants: scale_per_tile (block 0's scales for every block), e8m0_shift23 (UE8M0 as bits << 23).
#include <cmath>

#include "kernels/fp8_gemm_blockscaled/bs_gemm_launch_detail.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/common/fp8_codec.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"
#include "kernels/common/unroll.hpp"
#include "kernels/common/plan_errors.hpp"

namespace dsv4::kernels::bsgemm {
namespace {

struct KScale {
  const void* ptr;
  long long batch, row, group;
  int kind;  // 0 f32, 1 ue8m0 byte, 2 packed ue8m0 word
};

struct KParams {
  const std::uint8_t* x;
  const std::uint8_t* w;
  long long x_batch, x_row, w_batch, w_row;
  KScale xs, ws;
  const float* c;
  long long c_batch, c_row, c_col;
  void* d;
  long long d_batch, d_row, d_col;
  long long m, n, k;
  int w_row_block, bm, bn, k_step, fnuz, out_f32, has_c, variant;
};

// A decoded scale: value s·2^e (fp32 scales: e = 0; UE8M0: s = 1 or NaN, e = byte - 127).
struct Scale {
  float s;
  int e;
};

__device__ __forceinline__ Scale load_scale(const KScale& sc, long long b, long long r, long long g, int variant) {
  if (sc.kind == 0) {
    const float* p = static_cast<const float*>(sc.ptr);
    return {port::global_load(p + b * sc.batch + r * sc.row + g * sc.group), 0};
  }
  std::uint32_t byte;
  if (sc.kind == 1) {
    byte = port::global_load(static_cast<const std::uint8_t*>(sc.ptr) + b * sc.batch + r * sc.row + g * sc.group);
  } else {
    const std::uint32_t word =
        port::global_load(static_cast<const std::uint32_t*>(sc.ptr) + b * sc.batch + r * sc.row + (g / 4) * sc.group);
    byte = (word >> (8 * static_cast<int>(g % 4))) & 0xFFu;
  }
  if (variant == 2) return {fp8::bits_f32(byte << 23), 0};  // planted: known-bugs #13
  return {byte == 0xFFu ? fp8::ue8m0_to_f32(byte) : 1.0f, fp8::ue8m0_exponent(byte)};
}

// Stages rows [r0, r0 + rows) x K [k0, k0 + ks) of one fp8 operand (row stride ld) into dst[kk * pitch + r], decoded.
__device__ __forceinline__ void stage(port::lds_ptr<float> dst, const std::uint8_t* src, long long ld, int rows,
                                      long long valid_rows, long long r0, long long k0, long long k, int ks, int pitch,
                                      bool fnuz, int tid) {
  for (int i = tid; i < rows * ks; i += 256) {
    const int r = i / ks, kk = i % ks;
    float v = 0.f;
    if (r0 + r < valid_rows && k0 + kk < k) v = fp8::e4m3_to_f32(port::global_load(src + (r0 + r) * ld + k0 + kk), fnuz);
    dst[static_cast<std::ptrdiff_t>(kk) * pitch + r] = v;
  }
}

__global__ void __launch_bounds__(256) bs_gemm_kernel(KParams p) {
  DSV4_LDS_DYNAMIC(float, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (p.bn / 4), ty = tid / (p.bn / 4);
  const long long n0 = static_cast<long long>(blockIdx.x) * p.bn;
  const long long m0 = static_cast<long long>(blockIdx.y) * p.bm;
  const long long b = blockIdx.z;
  const int pa = p.bm + 4, pb = p.bn + 4;  // LDS pitches (kLdsPad)
  auto xs = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(p.k_step) * pa, "x_stage");
  auto wst = port::lds_carve<float>(smem, static_cast<std::size_t>(p.k_step) * pa * sizeof(float),
                                    static_cast<std::size_t>(p.k_step) * pb, "w_stage");
  const std::uint8_t* xb = p.x + b * p.x_batch;
  const std::uint8_t* wb = p.w + b * p.w_batch;
  const bool fnuz = p.fnuz != 0;

  float acc[4][4];
DSV4_UNROLL
  for (int i = 0; i < 4; ++i)
DSV4_UNROLL
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.f;

  const long long k_blocks = (p.k + 127) / 128;
  for (long long kb = 0; kb < k_blocks; ++kb) {
    float part[4][4];
DSV4_UNROLL
    for (int i = 0; i < 4; ++i)
DSV4_UNROLL
      for (int j = 0; j < 4; ++j) part[i][j] = 0.f;
    for (int s0 = 0; s0 < 128; s0 += p.k_step) {
      const long long k0 = kb * 128 + s0;
      if (k0 >= p.k) break;  // uniform over the block
      stage(xs, xb, p.x_row, p.bm, p.m, m0, k0, p.k, p.k_step, pa, fnuz, tid);
      stage(wst, wb, p.w_row, p.bn, p.n, n0, k0, p.k, p.k_step, pb, fnuz, tid);
      __syncthreads();
      for (int kk = 0; kk < p.k_step; ++kk) {
        const float4 a = port::lds_load_as<float4>(xs, static_cast<std::ptrdiff_t>(kk) * pa + ty * 4);
        const float4 c = port::lds_load_as<float4>(wst, static_cast<std::ptrdiff_t>(kk) * pb + tx * 4);
        const float av[4] = {a.x, a.y, a.z, a.w}, cv[4] = {c.x, c.y, c.z, c.w};
DSV4_UNROLL
        for (int i = 0; i < 4; ++i)
DSV4_UNROLL
          for (int j = 0; j < 4; ++j) part[i][j] += av[i] * cv[j];
      }
      __syncthreads();
    }
    // Promotion of this block's partials with this block's scales (planted: block 0's).
    const long long g = p.variant == 1 ? 0 : kb;
    Scale sx[4], sw[4];
DSV4_UNROLL
    for (int i = 0; i < 4; ++i) {
      const long long m = m0 + ty * 4 + i;
      sx[i] = m < p.m ? load_scale(p.xs, b, m, g, p.variant) : Scale{0.f, 0};
      const long long n = n0 + tx * 4 + i;
      sw[i] = n < p.n ? load_scale(p.ws, b, n / p.w_row_block, g, p.variant) : Scale{0.f, 0};
    }
DSV4_UNROLL
    for (int i = 0; i < 4; ++i)
DSV4_UNROLL
      for (int j = 0; j < 4; ++j) {
        float v = (sx[i].s * sw[j].s) * part[i][j];
        const int e = sx[i].e + sw[j].e;
        if (e != 0) v = ldexpf(v, e);
        acc[i][j] += v;
      }
  }

  // Epilogue.
DSV4_UNROLL
  for (int i = 0; i < 4; ++i) {
    const long long m = m0 + ty * 4 + i;
    if (m >= p.m) continue;
DSV4_UNROLL
    for (int j = 0; j < 4; ++j) {
      const long long n = n0 + tx * 4 + j;
      if (n >= p.n) continue;
      float v = acc[i][j];
      if (p.has_c) v += port::global_load(p.c + b * p.c_batch + m * p.c_row + n * p.c_col);
      const long long o = b * p.d_batch + m * p.d_row + n * p.d_col;
      if (p.out_f32) port::global_store(static_cast<float*>(p.d) + o, v);
      else port::global_store(static_cast<std::uint16_t*>(p.d) + o, common::f32_to_bf16(v));
    }
  }
}

KScale kscale(const ScaleOperand& s, ScaleKind k) {
  return {s.ptr, s.batch, s.row, s.group, k == ScaleKind::f32 ? 0 : (k == ScaleKind::ue8m0 ? 1 : 2)};
}

std::size_t scale_unit(ScaleKind k) { return k == ScaleKind::ue8m0 ? 1 : 4; }

}  // namespace

void launch_bs_gemm_kernel(const BsGemmPlan& plan, const BsGemmBuffers& io, port::Stream& stream) {
  const BsGemmShape& s = plan.shape;
  KParams p{};
  p.x = static_cast<const std::uint8_t*>(io.x.ptr);
  p.w = static_cast<const std::uint8_t*>(io.w.ptr);
  p.x_batch = io.x.batch;
  p.x_row = io.x.row;
  p.w_batch = io.w.batch;
  p.w_row = io.w.row;
  p.xs = kscale(io.x_sf, s.x_scale);
  p.ws = kscale(io.w_sf, s.w_scale);
  p.c = static_cast<const float*>(io.c.ptr);
  p.c_batch = io.c.batch;
  p.c_row = io.c.row;
  p.c_col = io.c.col;
  p.d = io.d.ptr;
  p.d_batch = io.d.batch;
  p.d_row = io.d.row;
  p.d_col = io.d.col;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  p.w_row_block = static_cast<int>(s.w_row_block);
  p.bm = plan.bm;
  p.bn = plan.bn;
  p.k_step = plan.k_step;
  p.fnuz = plan.arch_fp8 == Fp8::e4m3fnuz ? 1 : 0;
  p.out_f32 = s.out == OutType::f32 ? 1 : 0;
  p.has_c = s.has_c ? 1 : 0;
  p.variant = static_cast<int>(plan.options.variant);

  const std::int64_t G = plan.k_blocks, W = (G + 3) / 4;
  auto scale_bytes = [&](const ScaleOperand& so, ScaleKind k, std::int64_t rows) {
    const std::int64_t cols = k == ScaleKind::packed_ue8m0 ? W : G;
    return span_elems(s.batch, so.batch, rows, so.row, cols, so.group) * scale_unit(k);
  };
  const std::int64_t w_rows = (s.n + s.w_row_block - 1) / s.w_row_block;
  std::vector<port::BufferRange> ranges = {
      port::writes(io.d.ptr, span_elems(s.batch, io.d.batch, s.m, io.d.row, s.n, io.d.col) * (p.out_f32 ? 4 : 2), "d")};
  if (s.k > 0) {
    ranges.push_back(port::reads(io.x.ptr, span_elems(s.batch, io.x.batch, s.m, io.x.row, s.k, 1), "x"));
    ranges.push_back(port::reads(io.w.ptr, span_elems(s.batch, io.w.batch, s.n, io.w.row, s.k, 1), "w"));
    ranges.push_back(port::reads(io.x_sf.ptr, scale_bytes(io.x_sf, s.x_scale, s.m), "x_sf"));
    ranges.push_back(port::reads(io.w_sf.ptr, scale_bytes(io.w_sf, s.w_scale, w_rows), "w_sf"));
  }
  if (s.has_c) ranges.push_back(port::reads(io.c.ptr, span_elems(s.batch, io.c.batch, s.m, io.c.row, s.n, io.c.col) * 4, "c"));
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(plan.grid[0]), static_cast<unsigned>(plan.grid[1]),
                                    static_cast<unsigned>(plan.grid[2])),
                         port::Dim3(static_cast<unsigned>(plan.block)), plan.lds_bytes, &stream,
                         "fp8_gemm_blockscaled", std::move(ranges)};
  with_plan_in_errors(plan.describe(), [&] { port::launch(&bs_gemm_kernel, cfg, p); });
}

}  // namespace dsv4::kernels::bsgemm
