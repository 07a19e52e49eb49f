// __builtin_amdgcn_global_load_lds on the sim against values worked out here from the ISA rule (lane k writes `size`
// bytes at M0 + offset + k * stride, stride 4 up to 4 bytes and 16 above; it reads src + offset), and its planted
// misuses, one executable each (tests/hipsim/CMakeLists.txt matches the finding):
// - BUG_READ_BEFORE_WAIT: no s_waitcnt and no __syncthreads between the staging and the read of the other wave's
//   slot: lds_async_read_before_wait naming the reader and the issuing wave and lane.
// - BUG_LDS_DMA_OVERFLOW: each wave stages one slot further on, so wave 1 writes past the end of the block's LDS:
//   lds_out_of_range naming the array, offset 512, "outside the block's LDS: dropped".
// - BUG_GLOBAL_SRC_OOB: the global source is one float further on, so the last lane reads past its hipMalloc
//   allocation: global_out_of_range naming the byte.
// - BUG_NONUNIFORM_BASE: odd lanes pass a base one float further: wave_divergence (M0 is one per wave); the values
//   still land at lane 0's base, as on hardware, so the checks below pass.
// Cases: whole waves, lanes 40-63 inactive (their slots keep the sentinel), 2-byte loads (also as load_to_lds) with an
// instruction offset of 8 (applied to the global and the LDS address), and on gfx950 the 12- and 16-byte forms
// (stride 16).
// Rules: data and sentinels are non-zero and distinct; no expected value comes from the sim.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

__global__ void stage_swap(float* src, float* out, int active) {
  __shared__ float tile[128];
  const int t = threadIdx.x, lane = t % 64, w = t / 64;
  tile[t] = -1.0f - float(t);  // sentinel
  __syncthreads();
#if defined(BUG_LDS_DMA_OVERFLOW)
  float* dst = tile + (w + 1) * 64;
#else
  float* dst = tile + w * 64;
#endif
#if defined(BUG_NONUNIFORM_BASE)
  if (lane & 1) dst += 1;
#endif
#if defined(BUG_GLOBAL_SRC_OOB)
  float* from = src + t + 1;
#else
  float* from = src + t;
#endif
  if (lane < active) __builtin_amdgcn_global_load_lds(from, dst, 4, 0, 0);
#if !defined(BUG_READ_BEFORE_WAIT)
  __builtin_amdgcn_s_waitcnt(0x0F70);  // vmcnt(0), expcnt and lgkmcnt at their maximum (no wait)
  __syncthreads();
#endif
  out[t] = tile[(t + 64) % 128];
}

__global__ void stage_u16(unsigned short* src, unsigned short* out) {
  __shared__ unsigned short t16[160];
  __shared__ unsigned short g16[160];
  const int t = threadIdx.x;
  for (int i = t; i < 160; i += 64) t16[i] = g16[i] = static_cast<unsigned short>(0xA000 + i);
  __syncthreads();
  __builtin_amdgcn_global_load_lds(src + t, t16, 2, 8, 0);
  __builtin_amdgcn_load_to_lds(src + t, g16, 2, 8, 0);  // the generic-pointer spelling, same rule
  __builtin_amdgcn_s_waitcnt(0x0F70);
  __syncthreads();
  for (int i = t; i < 160; i += 64) {
    out[i] = t16[i];
    out[160 + i] = g16[i];
  }
}

#if defined(__gfx950__)
__global__ void stage_wide(unsigned* src, unsigned* out12, unsigned* out16) {
  __shared__ unsigned w12[256];
  __shared__ unsigned w16[256];
  const int t = threadIdx.x;
  for (int i = t; i < 256; i += 64) {
    w12[i] = 0xB0000000u + unsigned(i);
    w16[i] = 0xC0000000u + unsigned(i);
  }
  __syncthreads();
  __builtin_amdgcn_global_load_lds(src + 4 * t, w12, 12, 0, 0);
  __builtin_amdgcn_global_load_lds(src + 4 * t, w16, 16, 0, 0);
  __builtin_amdgcn_s_waitcnt(0x0F70);
  __syncthreads();
  for (int i = t; i < 256; i += 64) {
    out12[i] = w12[i];
    out16[i] = w16[i];
  }
}
#endif

namespace {
int bad = 0;
// A planted bug makes the synchronisation fail (its finding); the values are still checked.
void sync() {
#if defined(BUG_READ_BEFORE_WAIT) || defined(BUG_LDS_DMA_OVERFLOW) || defined(BUG_NONUNIFORM_BASE) || \
    defined(BUG_GLOBAL_SRC_OOB)
  (void)hipDeviceSynchronize();
#else
  if (hipDeviceSynchronize() != hipSuccess) ++bad;
#endif
}
template <class T>
void expect(const char* what, int i, T got, T want) {
  if (got != want && ++bad <= 12)
    std::printf("FAIL %s [%d]: got %g want %g\n", what, i, double(got), double(want));
}

void run_swap(int active) {
  std::vector<float> src(128), out(128, 0.0f);
  for (int i = 0; i < 128; ++i) src[i] = 1.5f + float(i);
  float *dsrc = nullptr, *dout = nullptr;
  hipMalloc(&dsrc, sizeof(float) * 128);
  hipMalloc(&dout, sizeof(float) * 128);
  hipMemcpy(dsrc, src.data(), sizeof(float) * 128, hipMemcpyHostToDevice);
  stage_swap<<<1, 128>>>(dsrc, dout, active);
  sync();
  hipMemcpy(out.data(), dout, sizeof(float) * 128, hipMemcpyDeviceToHost);
  for (int t = 0; t < 128; ++t) {
    const int s = (t + 64) % 128;  // the slot thread t reads: lane s % 64 of wave s / 64 staged src[s]
    expect(active == 64 ? "swap" : "swap_divergent", t, out[t], s % 64 < active ? 1.5f + float(s) : -1.0f - float(s));
  }
  hipFree(dsrc);
  hipFree(dout);
}

void run_u16() {
  std::vector<unsigned short> src(68), out(320, 0);
  for (int i = 0; i < 68; ++i) src[i] = static_cast<unsigned short>(0x1100 + 3 * i);
  unsigned short *dsrc = nullptr, *dout = nullptr;
  hipMalloc(&dsrc, sizeof(unsigned short) * 68);
  hipMalloc(&dout, sizeof(unsigned short) * 320);
  hipMemcpy(dsrc, src.data(), sizeof(unsigned short) * 68, hipMemcpyHostToDevice);
  stage_u16<<<1, 64>>>(dsrc, dout);
  sync();
  hipMemcpy(out.data(), dout, sizeof(unsigned short) * 320, hipMemcpyDeviceToHost);
  for (int i = 0; i < 160; ++i) {
    // lane k: bytes 8 + 4k, 8 + 4k + 1 <- src bytes 2k + 8, 2k + 9, i.e. u16 slot 4 + 2k <- src[k + 4]
    const bool lane_slot = i >= 4 && (i - 4) % 2 == 0 && (i - 4) / 2 < 64;
    const unsigned short want =
        lane_slot ? src[std::size_t((i - 4) / 2 + 4)] : static_cast<unsigned short>(0xA000 + i);
    expect("u16_offset8", i, out[i], want);
    expect("load_to_lds", i, out[160 + i], want);
  }
  hipFree(dsrc);
  hipFree(dout);
}

#if defined(__gfx950__)
void run_wide() {
  std::vector<unsigned> src(256), out12(256, 0), out16(256, 0);
  for (int i = 0; i < 256; ++i) src[i] = 0x7000u + 5u * unsigned(i);
  unsigned *dsrc = nullptr, *d12 = nullptr, *d16 = nullptr;
  hipMalloc(&dsrc, 4 * 256);
  hipMalloc(&d12, 4 * 256);
  hipMalloc(&d16, 4 * 256);
  hipMemcpy(dsrc, src.data(), 4 * 256, hipMemcpyHostToDevice);
  stage_wide<<<1, 64>>>(dsrc, d12, d16);
  sync();
  hipMemcpy(out12.data(), d12, 4 * 256, hipMemcpyDeviceToHost);
  hipMemcpy(out16.data(), d16, 4 * 256, hipMemcpyDeviceToHost);
  for (int i = 0; i < 256; ++i) {
    // stride 16: lane k's 12 bytes fill dwords 4k..4k+2, dword 4k+3 keeps its sentinel; 16 bytes fill all four
    expect("b96", i, out12[i], i % 4 < 3 ? src[std::size_t(i)] : 0xB0000000u + unsigned(i));
    expect("b128", i, out16[i], src[std::size_t(i)]);
  }
  hipFree(dsrc);
  hipFree(d12);
  hipFree(d16);
}
#endif
}  // namespace

int main() {
  run_swap(64);
  run_swap(40);
  run_u16();
#if defined(__gfx950__)
  run_wide();
#endif
  std::printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
