// The inline asm forms ROCm reductions use and the dot-product builtins, run on the sim and checked against values
// worked out here by hand from the ISA rules (DPP lane maps, masks and bound_ctrl; dot products of small exact values):
// DPP-modified v_add_f32 / v_mov_b32 / v_max_f32 (row_shr, row_bcast:15/31 under row masks, wave_shr:1, quad_perm,
// bound_ctrl:0, a tied old value) alone and composed into a whole-wave sum, v_dot2c_f32_f16, fdot2, fdot2_f32_bf16 (and its fp32 steps), sdot4 (with clamp), and the s_waitcnt /
// s_nop forms next to a global_load_lds staging (tests/hipsim/CMakeLists.txt also checks what the rewrite makes of
// each s_waitcnt).
// Rules: per-lane values are non-zero and distinct; every expected value is computed on the host from the rule.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kCases = 13;

// __builtin_amdgcn_s_waitcnt's gfx9 immediate: vmcnt = imm[3:0] | imm[15:14] << 4
static_assert(__hipsim_waitcnt_vmcnt(0x0F70) == 0);
static_assert(__hipsim_waitcnt_vmcnt(0x4F72) == 18);
static_assert(__hipsim_waitcnt_vmcnt(0xC07F) == 63);

__global__ void asm_forms(const float* in, float* out, int* iout) {
  __shared__ float stage[64];
  const int l = threadIdx.x;
  const float x = in[l];
  float r;
  // row_shr:1 with bound_ctrl: lane 0 of each row reads 0
  asm volatile("v_add_f32_dpp %0, %1, %2 row_shr:1 bound_ctrl:0" : "=v"(r) : "v"(x), "v"(x));
  out[0 * 64 + l] = r;
  // row_shr:2 without bound_ctrl: lanes 0-1 of each row keep the tied old value
  float old = 1000.0f + float(l);
  asm volatile("v_add_f32 %0, %2, %3 row_shr:2" : "=v"(r) : "0"(old), "v"(x), "v"(x));
  out[1 * 64 + l] = r;
  // row_bcast:15 row_mask:0xa: rows 1 and 3 get lane 15 of the row before; rows 0, 2 keep old
  asm volatile("v_mov_b32 %0, %2 row_bcast:15 row_mask:0xa" : "=v"(r) : "0"(old), "v"(x));
  out[2 * 64 + l] = r;
  // row_bcast:31 row_mask:0xc: rows 2 and 3 add lane 31
  r = old;
  asm volatile("v_add_f32 %0, %1, %0 row_bcast:31 row_mask:0xc" : "+v"(r) : "v"(x));
  out[3 * 64 + l] = r;
  // wave_shr:1 bound_ctrl:0 with max: lane 0 compares with 0
  const float neg = -x;
  asm volatile("v_max_f32 %0, %1, %2 wave_shr:1 bound_ctrl:0" : "=v"(r) : "v"(neg), "v"(neg));
  out[4 * 64 + l] = r;
  // quad_perm:[1,0,3,2] move, two instructions in one statement on the same register
  asm volatile("s_nop 1\n\tv_mov_b32 %0, %1 quad_perm:[1,0,3,2]\n\tv_add_f32 %0, %0, %1" : "=v"(r) : "v"(x));
  out[5 * 64 + l] = r;
  // a whole-wave sum as ROCm GEMVs write it: row_shr 8, 4, 2, 1 (bound_ctrl) leave each row's sum in its lane 15,
  // row_bcast:15 (rows 1, 3) and row_bcast:31 (rows 2, 3) carry them on, so lane 63 holds the wave's sum
  float s = x;
  asm volatile("v_add_f32 %0, %1, %1 row_shr:8 bound_ctrl:0" : "=v"(s) : "v"(s));
  asm volatile("v_add_f32 %0, %1, %1 row_shr:4 bound_ctrl:0" : "=v"(s) : "v"(s));
  asm volatile("v_add_f32 %0, %1, %1 row_shr:2 bound_ctrl:0" : "=v"(s) : "v"(s));
  asm volatile("v_add_f32 %0, %1, %1 row_shr:1 bound_ctrl:0" : "=v"(s) : "v"(s));
  asm volatile("v_add_f32 %0, %1, %0 row_bcast:15 row_mask:0xa" : "+v"(s) : "v"(s));
  asm volatile("v_add_f32 %0, %1, %0 row_bcast:31 row_mask:0xc" : "+v"(s) : "v"(s));
  out[11 * 64 + l] = s;
  // v_dot2c_f32_f16: acc + a.lo * b.lo + a.hi * b.hi
  const _Float16 alo = _Float16(float(l + 1)), ahi = _Float16(0.5f), blo = _Float16(2.0f), bhi = _Float16(float(l));
  unsigned a2, b2;
  {
    unsigned short p[2];
    std::memcpy(&p[0], &alo, 2);
    std::memcpy(&p[1], &ahi, 2);
    a2 = p[0] | unsigned(p[1]) << 16;
    std::memcpy(&p[0], &blo, 2);
    std::memcpy(&p[1], &bhi, 2);
    b2 = p[0] | unsigned(p[1]) << 16;
  }
  float acc = 1.5f;
  asm volatile("v_dot2c_f32_f16 %0, %2, %3" : "=v"(acc) : "0"(acc), "v"(a2), "v"(b2));
  out[6 * 64 + l] = acc;
  __hipsim_half2_t ha = {alo, ahi}, hb = {blo, bhi};
  out[7 * 64 + l] = __builtin_amdgcn_fdot2(ha, hb, -0.25f, false);
  // bf16 by its bits (the top half of the fp32; these values are exact in bf16)
  auto bf = [](float f) {
    return __builtin_bit_cast(__bf16, static_cast<unsigned short>(__builtin_bit_cast(unsigned, f) >> 16));
  };
  __hipsim_bf16x2_t ba = {bf(float(l) + 0.5f), bf(-3.0f)}, bb = {bf(4.0f), bf(float(l))};
  out[8 * 64 + l] = __builtin_amdgcn_fdot2_f32_bf16(ba, bb, 2.0f, false);
  // V_DOT2_F32_BF16's fp32 steps (CDNA4 ISA guide 12.10): 1 + 2^-24 rounds to 1 (a tie, to even), + 2^-24 again to 1;
  // the sum rounded once would be 1 + 2^-23.
  __hipsim_bf16x2_t r1 = {bf(1.0f), bf(0x1p-12f)};
  out[12 * 64 + l] = __builtin_amdgcn_fdot2_f32_bf16(r1, r1, 0x1p-24f, false);
  out[9 * 64 + l] = __builtin_amdgcn_fdot2(ha, hb, -0.25f, true);
  // sdot4: bytes (l, -2, 3, -128) . (5, 7, -1, l) + 10; clamp case with a large accumulator
  const int ia = (l & 0xFF) | (0xFE << 8) | (3 << 16) | int(0x80u << 24), ib = 5 | (7 << 8) | (0xFF << 16) | (l << 24);
  iout[0 * 64 + l] = __builtin_amdgcn_sdot4(ia, ib, 10, false);
  iout[1 * 64 + l] = __builtin_amdgcn_sdot4(ia, ib, -2147483000, true);
  // the waits around an LDS DMA
  __builtin_amdgcn_global_load_lds(const_cast<float*>(in + l), stage, 4, 0, 0);
  asm volatile("s_waitcnt vmcnt(0)" ::: "memory");
  asm volatile("s_waitcnt lgkmcnt(0)");
  asm volatile("s_waitcnt vmcnt(0) lgkmcnt(0)");
  asm volatile("s_waitcnt 0");
  asm volatile("s_waitcnt 0xc07f");  // vmcnt 63 (imm[15:14] = 3, imm[3:0] = 15): no wait on vmcnt
  asm volatile("s_waitcnt vmcnt(%0)" ::"n"(2));
  asm volatile("s_setprio 2\n\ts_sleep 1" ::: "memory");
  asm volatile("" ::: "memory");
  __builtin_amdgcn_sched_barrier(0);
  __builtin_amdgcn_sched_group_barrier(0x008, 1, 0);
  __builtin_amdgcn_s_setprio(1);
  __builtin_amdgcn_s_sleep(1);
  __builtin_amdgcn_iglp_opt(0);
  __syncthreads();
  out[10 * 64 + l] = stage[63 - l];
}

int main() {
  std::vector<float> in(64), out(kCases * 64, 0.0f);
  std::vector<int> iout(2 * 64, 0);
  for (int l = 0; l < 64; ++l) in[l] = float(3 * l + 1);
  float *din = nullptr, *dout = nullptr;
  int* diout = nullptr;
  hipMalloc(&din, 4 * 64);
  hipMalloc(&dout, 4 * kCases * 64);
  hipMalloc(&diout, 4 * 2 * 64);
  hipMemcpy(din, in.data(), 4 * 64, hipMemcpyHostToDevice);
  asm_forms<<<1, 64>>>(din, dout, diout);
  int bad = hipDeviceSynchronize() != hipSuccess;
  hipMemcpy(out.data(), dout, 4 * kCases * 64, hipMemcpyDeviceToHost);
  hipMemcpy(iout.data(), diout, 4 * 2 * 64, hipMemcpyDeviceToHost);
  auto check = [&](const char* what, int l, double got, double want) {
    if (got != want && ++bad <= 16) std::printf("FAIL %s lane %d: got %.9g want %.9g\n", what, l, got, want);
  };
  for (int l = 0; l < 64; ++l) {
    const int pos = l % 16, row = l / 16;
    const double x = in[l], old = 1000.0 + l;
    check("row_shr1_bc", l, out[0 * 64 + l], (pos >= 1 ? in[l - 1] : 0.0) + x);
    check("row_shr2_old", l, out[1 * 64 + l], pos >= 2 ? in[l - 2] + x : old);
    check("row_bcast15", l, out[2 * 64 + l], (row == 1 || row == 3) ? in[row * 16 - 1] : old);
    check("row_bcast31", l, out[3 * 64 + l], row >= 2 ? in[31] + old : old);
    check("wave_shr1_max", l, out[4 * 64 + l], l == 0 ? 0.0 : (-in[l - 1] > -x ? -in[l - 1] : -x));
    check("quad_perm", l, out[5 * 64 + l], in[l ^ 1] + x);
    check("dot2c", l, out[6 * 64 + l], 1.5 + 2.0 * (l + 1) + 0.5 * l);
    check("fdot2", l, out[7 * 64 + l], -0.25 + 2.0 * (l + 1) + 0.5 * l);
    check("fdot2_bf16", l, out[8 * 64 + l], 2.0 + 4.0 * (l + 0.5) - 3.0 * l);
    check("fdot2_clamp", l, out[9 * 64 + l], 1.0);
    float steps = 1.0f;  // the guide's fp32 steps, on the host
    steps += 0x1p-24f;
    steps += 0x1p-24f;
    check("fdot2_bf16_steps", l, out[12 * 64 + l], steps);
    const long s = 5L * l + (-2) * 7 + 3 * (-1) + (-128L) * l;
    check("sdot4", l, iout[0 * 64 + l], double(s + 10));
    const long c = s - 2147483000L;
    check("sdot4_clamp", l, iout[1 * 64 + l], double(c < -2147483648L ? -2147483648L : c));
    check("waitcnt_staging", l, out[10 * 64 + l], in[63 - l]);
  }
  double rows[4] = {0, 0, 0, 0};
  for (int l = 0; l < 64; ++l) rows[l / 16] += in[l];
  check("wave_sum", 15, out[11 * 64 + 15], rows[0]);
  check("wave_sum", 31, out[11 * 64 + 31], rows[0] + rows[1]);
  check("wave_sum", 47, out[11 * 64 + 47], rows[0] + rows[1] + rows[2]);
  check("wave_sum", 63, out[11 * 64 + 63], rows[0] + rows[1] + rows[2] + rows[3]);
  std::printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
