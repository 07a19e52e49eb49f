// ds_bpermute / ds_permute / ds_swizzle on a 64-lane wave and a 48-lane one (lanes 48-63 do not run), compared with
// tables built here from the CDNA3 ISA rules ("LDS instructions"): bpermute: lane i reads lane (addr / 4) mod 64
// (byte address, low two bits and high bits ignored), 0 from a lane that does not run; permute: lane i's value goes
// to lane (addr / 4) mod 64, a lane nobody targets gets 0, and of several sources for one lane the highest-numbered
// wins; swizzle bitmask mode (offset[15] = 0, groups of 32 lanes): lane i reads ((i & and) | or) ^ xor with and =
// offset[4:0], or = offset[9:5], xor = offset[14:10]; quad-perm mode (offset[15:8] = 0x80): each lane of a quad
// reads the quad lane its 2-bit field names (offset[15] set below 0xC000, bits 8-14 ignored). The gfx9 extended modes
// (CDNA4 ISA guide 12.12, DS_SWIZZLE_B32, on each 32-lane half; i = lane index in the half): rotate (0xC000-0xDFFF):
// lane i reads ((i & mask) | ((i + r) & ~mask)) mod 32, r = offset[9:5] negated when offset[10] is set, mask =
// offset[4:0]; FFT (0xE000-0xFFFF): lane i reads (bit-reversed i >> popcount(mask)) | (i & mask). The assembler's
// named forms are checked at the encodings llvm-mc gives: swap n -> lane i ^ n, reverse n -> groups of n reversed,
// broadcast n,k -> lane k of each group of n, ROTATE,dir,n and FFT,m with hand-worked lanes. Also wave_barrier, a
// no-op that a lane may skip.
// Rule: lane values are non-zero and distinct.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kLanes = 64;

int value(int l) { return 0x300 + 13 * l + 5; }
__device__ int dvalue(int l) { return 0x300 + 13 * l + 5; }

__global__ void bperm(const int* addr, int n, int* out) {
  const int l = threadIdx.x;
  for (int i = 0; i < n; ++i) {
    out[(2 * i) * kLanes + l] = __builtin_amdgcn_ds_bpermute(addr[i * kLanes + l], dvalue(l));
    out[(2 * i + 1) * kLanes + l] = __builtin_amdgcn_ds_permute(addr[i * kLanes + l], dvalue(l));
  }
}

__global__ void swizzle(const int* pats, int n, int* out) {
  const int l = threadIdx.x;
  if (l >= 60) __builtin_amdgcn_wave_barrier();  // not a wave-collective: skipping it is fine
  for (int i = 0; i < n; ++i) out[i * blockDim.x + l] = __builtin_amdgcn_ds_swizzle(dvalue(l), pats[i]);
}

// The named forms with immediate patterns, as a kernel would write them (encodings from llvm-mc -mcpu=gfx942).
__global__ void swizzle_named(int* out) {
  const int l = threadIdx.x, v = dvalue(l);
  out[0 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0x101F);  // swizzle(SWAP,4)
  out[1 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0x1C1F);  // swizzle(REVERSE,8)
  out[2 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0x0078);  // swizzle(BROADCAST,8,3)
  out[3 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0x8039);  // swizzle(QUAD_PERM,1,2,3,0)
  out[4 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0x0906);  // swizzle(BITMASK_PERM,"01pi0")
  out[5 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0xC060);  // swizzle(ROTATE,0,3)
  out[6 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0xC420);  // swizzle(ROTATE,1,1)
  out[7 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0xE000);  // swizzle(FFT,0)
  out[8 * kLanes + l] = __builtin_amdgcn_ds_swizzle(v, 0xE001);  // swizzle(FFT,1)
}
constexpr int kNamed = 9;

int main() {
  int bad = 0;
  auto check = [&](const char* what, int idx, int lane, int got, int want) {
    if (got != want && ++bad <= 20)
      std::printf("FAIL %s #%d lane %d: got 0x%X want 0x%X\n", what, idx, lane, got, want);
  };

  // Address patterns (bytes): a rotation, with low bits set, past 256, negative, and a collision pattern.
  std::vector<std::vector<int>> addrs;
  std::vector<int> a(kLanes);
  for (int l = 0; l < kLanes; ++l) a[l] = 4 * ((5 * l + 3) % 64);
  addrs.push_back(a);
  for (int l = 0; l < kLanes; ++l) a[l] = 4 * (63 - l) + (l % 4);  // low two bits ignored
  addrs.push_back(a);
  for (int l = 0; l < kLanes; ++l) a[l] = 4 * l + 256 * (l + 1);  // mod 64 lanes: back to lane l
  addrs.push_back(a);
  for (int l = 0; l < kLanes; ++l) a[l] = -4 * (l + 1);  // -4 -> lane 63, -8 -> lane 62, ...
  addrs.push_back(a);
  for (int l = 0; l < kLanes; ++l) a[l] = 4 * (l / 2);  // lanes 2k and 2k+1 both target lane k
  addrs.push_back(a);
  const int na = int(addrs.size());
  std::vector<int> flat;
  for (auto& v : addrs) flat.insert(flat.end(), v.begin(), v.end());
  int *daddr = nullptr, *dout = nullptr;
  hipMalloc(&daddr, sizeof(int) * flat.size());
  hipMalloc(&dout, sizeof(int) * 2 * na * kLanes);
  hipMemcpy(daddr, flat.data(), sizeof(int) * flat.size(), hipMemcpyHostToDevice);
  std::vector<int> got(2 * na * kLanes);
  for (int lanes : {48, kLanes}) {  // a partial wave (lanes 48-63 do not run), then the full one the literals read
    bperm<<<1, lanes>>>(daddr, na, dout);
    hipMemcpy(got.data(), dout, sizeof(int) * got.size(), hipMemcpyDeviceToHost);
    for (int i = 0; i < na; ++i) {
      std::vector<int> want_perm(kLanes, 0);
      for (int l = 0; l < lanes; ++l) {  // the ISA's loop over source lanes in order: later (higher) lanes overwrite
        const unsigned byte = unsigned(addrs[i][l]);
        want_perm[(byte / 4) % 64] = value(l);
      }
      for (int l = 0; l < lanes; ++l) {
        const int src = int((unsigned(addrs[i][l]) / 4) % 64);
        check(lanes == 64 ? "ds_bpermute" : "ds_bpermute 48 lanes", i, l, got[(2 * i) * kLanes + l],
              src < lanes ? value(src) : 0);
        check(lanes == 64 ? "ds_permute" : "ds_permute 48 lanes", i, l, got[(2 * i + 1) * kLanes + l], want_perm[l]);
      }
    }
  }
  // Literal: the collision pattern gives lane k the value of lane 2k+1; lanes 32-63 get 0.
  check("ds_permute collision (literal)", 4, 3, got[9 * kLanes + 3], value(7));
  check("ds_permute untargeted (literal)", 4, 40, got[9 * kLanes + 40], 0);
  check("ds_bpermute negative (literal)", 3, 0, got[6 * kLanes + 0], value(63));

  // Swizzle: every quad-perm selector; bitmask mode over all and/xor masks and five or masks. Full wave and a
  // 48-lane wave (lanes 48-63 do not run: a source there gives 0).
  std::vector<int> pats;
  for (int q = 0; q < 256; ++q) pats.push_back(0x8000 | q);
  for (int q : {0x39, 0xE4, 0x1B}) pats.push_back(0xBF00 | q);  // quad-perm with bits 8-14 set: ignored
  for (int m = 0; m < 32; ++m) pats.push_back(0xE000 | m);      // every FFT mask
  pats.push_back(0xFFFF);                                        // FFT with the unused bits set
  for (int dir = 0; dir < 2; ++dir)
    for (int r = 0; r < 32; ++r)
      for (int m : {0, 1, 3, 16}) pats.push_back(0xC000 | dir << 10 | r << 5 | m);  // rotate, with and without masks
  for (int and_m = 0; and_m < 32; ++and_m)
    for (int or_m : {0, 1, 6, 16, 31})
      for (int xor_m = 0; xor_m < 32; ++xor_m) pats.push_back(and_m | (or_m << 5) | (xor_m << 10));
  const int np = int(pats.size());
  int *dp = nullptr, *ds = nullptr;
  hipMalloc(&dp, sizeof(int) * np);
  hipMalloc(&ds, sizeof(int) * np * kLanes);
  hipMemcpy(dp, pats.data(), sizeof(int) * np, hipMemcpyHostToDevice);
  for (int lanes : {64, 48}) {
    swizzle<<<1, lanes>>>(dp, np, ds);
    std::vector<int> sw(np * lanes);
    hipMemcpy(sw.data(), ds, sizeof(int) * sw.size(), hipMemcpyDeviceToHost);
    for (int i = 0; i < np; ++i) {
      const int p = pats[i];
      for (int l = 0; l < lanes; ++l) {
        int src;
        const int half = (l / 32) * 32, i5 = l % 32;
        if (p >= 0xE000) {  // FFT: i's five bits reversed, shifted right by the mask's bit count, the mask's bits of i
          const int m = p % 32;
          int rev = 0, ones = 0;
          for (int b = 0; b < 5; ++b) {
            if (i5 & (1 << b)) rev += 16 >> b;
            if (m & (1 << b)) ++ones;
          }
          src = half + ((rev >> ones) | (i5 & m));
        } else if (p >= 0xC000) {  // rotate within the half: by +r, or -r with offset[10]; the mask's bits stay
          const int m = p % 32, r = (p / 32) % 32, neg = (p / 1024) % 2;
          const int moved = ((i5 + (neg ? 32 - r : r)) % 32) & (31 - m);
          src = half + ((i5 & m) | moved);
        } else if (p >= 0x8000) {
          const int field = (p >> (2 * (l % 4))) % 4;
          src = l - l % 4 + field;
        } else {
          const int and_m = p % 32, or_m = (p / 32) % 32, xor_m = (p / 1024) % 32;
          src = (l / 32) * 32 + (((l % 32) & and_m | or_m) ^ xor_m);
        }
        const int want = src < lanes ? value(src) : 0;
        check(lanes == 64 ? "ds_swizzle" : "ds_swizzle 48 lanes", p, l, sw[i * lanes + l], want);
      }
    }
  }

  // Named forms: swap 4, reverse 8, broadcast lane 3 of each 8, quad_perm [1,2,3,0], BITMASK_PERM "01pi0".
  int* dn = nullptr;
  hipMalloc(&dn, sizeof(int) * kNamed * kLanes);
  swizzle_named<<<1, kLanes>>>(dn);
  std::vector<int> nm(kNamed * kLanes);
  hipMemcpy(nm.data(), dn, sizeof(int) * nm.size(), hipMemcpyDeviceToHost);
  for (int l = 0; l < kLanes; ++l) {
    check("swizzle(SWAP,4)", 0, l, nm[0 * kLanes + l], value(l ^ 4));
    check("swizzle(REVERSE,8)", 1, l, nm[1 * kLanes + l], value(8 * (l / 8) + 7 - l % 8));
    check("swizzle(BROADCAST,8,3)", 2, l, nm[2 * kLanes + l], value(8 * (l / 8) + 3));
    check("swizzle(QUAD_PERM,1,2,3,0)", 3, l, nm[3 * kLanes + l], value(4 * (l / 4) + (l % 4 + 1) % 4));
    // "01pi0": bit 4 <- 0, bit 3 <- 1, bit 2 preserved, bit 1 inverted, bit 0 <- 0 (within the 32-lane group).
    const int i5 = l % 32, m = 8 | (i5 & 4) | ((~i5) & 2);
    check("swizzle(BITMASK_PERM,\"01pi0\")", 4, l, nm[4 * kLanes + l], value((l / 32) * 32 + m));
    check("swizzle(ROTATE,0,3)", 5, l, nm[5 * kLanes + l], value((l / 32) * 32 + (i5 + 3) % 32));
    check("swizzle(ROTATE,1,1)", 6, l, nm[6 * kLanes + l], value((l / 32) * 32 + (i5 + 31) % 32));
  }
  // FFT by hand: FFT,0 is the 5-bit reversal (lane 1 <- 16, 3 <- 24, 6 <- 12, 33 <- 48, 63 <- 63); FFT,1 shifts the
  // reversal right by one and keeps bit 0 (lane 2 <- 4, 3 <- 13, 6 <- 6, 35 <- 45).
  const int fft0[][2] = {{0, 0}, {1, 16}, {3, 24}, {6, 12}, {33, 48}, {63, 63}};
  const int fft1[][2] = {{0, 0}, {2, 4}, {3, 13}, {6, 6}, {35, 45}};
  for (auto& f : fft0) check("swizzle(FFT,0)", 7, f[0], nm[7 * kLanes + f[0]], value(f[1]));
  for (auto& f : fft1) check("swizzle(FFT,1)", 8, f[0], nm[8 * kLanes + f[0]], value(f[1]));

  hipFree(daddr); hipFree(dout); hipFree(dp); hipFree(ds); hipFree(dn);
  std::printf("%d address patterns, %d swizzle patterns x 2 wave sizes, %d named forms checked\n", na, np, kNamed);
  std::printf(bad ? "FAIL %d mismatches\n" : "PASS\n", bad);
  return bad ? 1 : 0;
}
