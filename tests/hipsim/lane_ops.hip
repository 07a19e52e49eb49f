// readfirstlane / readlane / mbcnt_lo+hi on one 64-lane wave, compared with tables built here by hand from the CDNA3
// ISA rules (readlane: every lane gets lane s's value, s taken modulo 64; mbcnt: acc + popcount of the mask bits
// below the lane, lo over lanes 0-31, hi over lanes 32-63).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kLanes = 64, kOut = 4;

__global__ void lane_ops(int* out, int src, unsigned mlo, unsigned mhi) {
  const int l = threadIdx.x;
  const int v = 1000 + 7 * l;
  out[0 * kLanes + l] = __builtin_amdgcn_readfirstlane(v);
  out[1 * kLanes + l] = __builtin_amdgcn_readlane(v, src);
  out[2 * kLanes + l] = int(__builtin_amdgcn_mbcnt_lo(mlo, 3u));
  out[3 * kLanes + l] = int(__builtin_amdgcn_mbcnt_hi(mhi, __builtin_amdgcn_mbcnt_lo(mlo, 0u)));
}

int main() {
  const char* names[kOut] = {"readfirstlane", "readlane", "mbcnt_lo", "mbcnt_hi(lo)"};
  int bad = 0;
  const unsigned mlo = 0xA5F0C3E1u, mhi = 0x0F0FF00Fu;
  for (int src : {0, 17, 63, 64 + 9}) {
    int* d = nullptr;
    hipMalloc(&d, sizeof(int) * kLanes * kOut);
    lane_ops<<<1, kLanes>>>(d, src, mlo, mhi);
    std::vector<int> got(kLanes * kOut);
    hipMemcpy(got.data(), d, sizeof(int) * got.size(), hipMemcpyDeviceToHost);
    hipFree(d);
    const int s = src % 64;
    for (int l = 0; l < kLanes; ++l) {
      int want[kOut];
      want[0] = 1000;
      want[1] = 1000 + 7 * s;
      int lo = 0, hi = 0;
      for (int b = 0; b < 32; ++b) {
        if (b < l && ((mlo >> b) & 1)) ++lo;
        if (b + 32 < l && ((mhi >> b) & 1)) ++hi;
      }
      want[2] = 3 + lo;
      want[3] = lo + hi;
      for (int k = 0; k < kOut; ++k)
        if (got[k * kLanes + l] != want[k]) {
          std::printf("FAIL %s src %d lane %d: got %d want %d\n", names[k], src, l, got[k * kLanes + l], want[k]);
          ++bad;
        }
    }
  }
  std::printf(bad ? "FAIL %d mismatches\n" : "PASS\n", bad);
  return bad ? 1 : 0;
}
