// ds_bpermute / ds_permute / ds_swizzle on a 64-lane wave and a 48-lane one (lanes 48-63 do not run), compared with
// tables built here from the CDNA3 ISA rules ("LDS instructions"): bpermute: lane i reads lane (addr / 4) mod 64
// (byte address, low two bits and high bits ignored), 0 from a lane that does not run; permute: lane i's value goes
// to lane (addr / 4) mod 64, a lane nobody targets gets 0, and of several sources for one lane the highest-numbered
// wins; swizzle bitmask mode (offset[15] = 0, groups of 32 lanes): lane i reads ((i & and) | or) ^ xor with and =
// offset[4:0], or = offset[9:5], xor = offset[14:10]; quad-perm mode (offset[15:8] = 0x80): each lane of a quad
// reads the quad lane its 2-bit field names. The assembler's named forms are checked as special cases of the bitmask,
// at the encodings llvm-mc gives: swap n -> lane i ^ n, reverse n -> groups of n reversed, broadcast n,k -> lane k of
// each group of n. Also wave_barrier, a no-op that a lane may skip.
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
}

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
        if (p >= 0x8000) {
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
  hipMalloc(&dn, sizeof(int) * 5 * kLanes);
  swizzle_named<<<1, kLanes>>>(dn);
  std::vector<int> nm(5 * kLanes);
  hipMemcpy(nm.data(), dn, sizeof(int) * nm.size(), hipMemcpyDeviceToHost);
  for (int l = 0; l < kLanes; ++l) {
    check("swizzle(SWAP,4)", 0, l, nm[0 * kLanes + l], value(l ^ 4));
    check("swizzle(REVERSE,8)", 1, l, nm[1 * kLanes + l], value(8 * (l / 8) + 7 - l % 8));
    check("swizzle(BROADCAST,8,3)", 2, l, nm[2 * kLanes + l], value(8 * (l / 8) + 3));
    check("swizzle(QUAD_PERM,1,2,3,0)", 3, l, nm[3 * kLanes + l], value(4 * (l / 4) + (l % 4 + 1) % 4));
    // "01pi0": bit 4 <- 0, bit 3 <- 1, bit 2 preserved, bit 1 inverted, bit 0 <- 0 (within the 32-lane group).
    const int i5 = l % 32, m = 8 | (i5 & 4) | ((~i5) & 2);
    check("swizzle(BITMASK_PERM,\"01pi0\")", 4, l, nm[4 * kLanes + l], value((l / 32) * 32 + m));
  }

  hipFree(daddr); hipFree(dout); hipFree(dp); hipFree(ds); hipFree(dn);
  std::printf("%d address patterns, %d swizzle patterns x 2 wave sizes, 5 named forms checked\n", na, np);
  std::printf(bad ? "FAIL %d mismatches\n" : "PASS\n", bad);
  return bad ? 1 : 0;
}
