// Raw buffer loads and stores through make_buffer_rsrc against values worked out here from the range-check rule
// (hipsim/runtime/buffer_ops.cpp): an element is in range when voffset + its end <= num_records (dword by dword for
// 8-16 bytes; soffset moves the address, not the check); out of range a load gives 0 and a store is dropped, with no
// finding unless DSV4_SIM_REPORT_BUFFER_OOB=1 (tests/hipsim/CMakeLists.txt runs both). BUG_RSRC_PAST_ALLOCATION: a
// descriptor wider than its allocation, so in-range elements past the allocation are global_out_of_range.
// Rules: data and sentinels are non-zero and distinct; expected values come from the rule, not from the sim.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kRecords = 148;  // bytes: 37 floats
constexpr int kStoreRecords = 160;  // bytes: 40 floats

__global__ void buffer_ops(float* src, float* dst, unsigned* out) {
  const int l = threadIdx.x;
  const __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(src, 0, kRecords, 0x00020000);
  out[0 * 64 + l] = __builtin_amdgcn_raw_buffer_load_b32(r, 4 * l, 0, 0);
  out[1 * 64 + l] = __builtin_amdgcn_raw_buffer_load_b32(r, 4 * l, 8, 0);  // soffset: address only
  out[2 * 64 + l] = __builtin_amdgcn_raw_buffer_load_b16(r, 140 + l, 0, 0);
  out[3 * 64 + l] = __builtin_amdgcn_raw_buffer_load_b8(r, 140 + l, 0, 0);
  if (l < 4) {
    auto v4 = __builtin_amdgcn_raw_buffer_load_b128(r, 132 + 4 * l, 0, 0);
    auto v2 = __builtin_amdgcn_raw_buffer_load_b64(r, 136 + 4 * l, 0, 0);
    auto v3 = __builtin_amdgcn_raw_buffer_load_b96(r, 136 + 4 * l, 0, 0);
    for (int k = 0; k < 4; ++k) out[4 * 64 + 4 * l + k] = v4[k];
    for (int k = 0; k < 2; ++k) out[5 * 64 + 2 * l + k] = v2[k];
    for (int k = 0; k < 3; ++k) out[6 * 64 + 3 * l + k] = v3[k];
  }
#if defined(BUG_RSRC_PAST_ALLOCATION)
  const __amdgpu_buffer_rsrc_t w = __builtin_amdgcn_make_buffer_rsrc(dst, 0, 64 * 4, 0x00020000);
#else
  const __amdgpu_buffer_rsrc_t w = __builtin_amdgcn_make_buffer_rsrc(dst, 0, kStoreRecords, 0x00020000);
#endif
  __builtin_amdgcn_raw_buffer_store_b32(0x5000u + unsigned(l), w, 4 * l, 0, 0);
}

int main() {
  std::vector<float> src(64);
  for (int i = 0; i < 64; ++i) src[i] = 2.0f + float(i);
  const unsigned char* sb = reinterpret_cast<const unsigned char*>(src.data());
  auto u32 = [&](int byte) { unsigned v; __builtin_memcpy(&v, sb + byte, 4); return v; };
  float *dsrc = nullptr, *ddst = nullptr;
  unsigned* dout = nullptr;
  hipMalloc(&dsrc, 4 * 64);
  hipMalloc(&ddst, 4 * 48);  // 8 floats more than the correct descriptor covers
  hipMalloc(&dout, 4 * 7 * 64);
  hipMemcpy(dsrc, src.data(), 4 * 64, hipMemcpyHostToDevice);
  std::vector<unsigned> sentinel(48);
  for (int i = 0; i < 48; ++i) sentinel[std::size_t(i)] = 0xEE00u + unsigned(i);
  hipMemcpy(ddst, sentinel.data(), 4 * 48, hipMemcpyHostToDevice);
  std::vector<unsigned> out(7 * 64, 0xDEADu);
  hipMemcpy(dout, out.data(), 4 * 7 * 64, hipMemcpyHostToDevice);
  buffer_ops<<<1, 64>>>(dsrc, ddst, dout);
  int bad = 0;
#if defined(BUG_RSRC_PAST_ALLOCATION)
  (void)hipDeviceSynchronize();
#else
  bad += hipDeviceSynchronize() != hipSuccess;
#endif
  hipMemcpy(out.data(), dout, 4 * 7 * 64, hipMemcpyDeviceToHost);
  std::vector<unsigned> dst(48);
  hipMemcpy(dst.data(), ddst, 4 * 48, hipMemcpyDeviceToHost);
  auto check = [&](const char* what, int i, unsigned got, unsigned want) {
    if (got != want && ++bad <= 16) std::printf("FAIL %s [%d]: got %#x want %#x\n", what, i, got, want);
  };
  for (int l = 0; l < 64; ++l) {
    check("b32", l, out[std::size_t(l)], 4 * l + 4 <= kRecords ? u32(4 * l) : 0u);
    check("b32_soffset", l, out[std::size_t(64 + l)], 4 * l + 4 <= kRecords ? u32(4 * l + 8) : 0u);
    const int o = 140 + l;
    check("b16", l, out[std::size_t(128 + l)], o + 2 <= kRecords ? unsigned(sb[o] | sb[o + 1] << 8) : 0u);
    check("b8", l, out[std::size_t(192 + l)], o + 1 <= kRecords ? unsigned(sb[o]) : 0u);
  }
  for (int l = 0; l < 4; ++l) {
    for (int k = 0; k < 4; ++k) {
      const int b = 132 + 4 * l + 4 * k;  // dword k of lane l's 16 bytes, checked on its own
      check("b128", 4 * l + k, out[std::size_t(256 + 4 * l + k)], b + 4 <= kRecords ? u32(b) : 0u);
    }
    for (int k = 0; k < 2; ++k) {
      const int b = 136 + 4 * l + 4 * k;
      check("b64", 2 * l + k, out[std::size_t(320 + 2 * l + k)], b + 4 <= kRecords ? u32(b) : 0u);
    }
    for (int k = 0; k < 3; ++k) {
      const int b = 136 + 4 * l + 4 * k;
      check("b96", 3 * l + k, out[std::size_t(384 + 3 * l + k)], b + 4 <= kRecords ? u32(b) : 0u);
    }
  }
  for (int i = 0; i < 48; ++i)  // past num_records (160 B = 40 floats) the store is dropped
    check("store", i, dst[std::size_t(i)], i < 40 ? 0x5000u + unsigned(i) : 0xEE00u + unsigned(i));
  std::printf(bad ? "FAIL\n" : "PASS\n");
  return bad ? 1 : 0;
}
