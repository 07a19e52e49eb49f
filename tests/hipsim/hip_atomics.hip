// The __hip_atomic_* builtins with memory orders and scopes, in plain HIP, against values computed by hand on the
// host: an LDS-then-global histogram (fetch_add, workgroup and agent scope), signed int / float / 64-bit max and
// min reductions, a CAS counter (strong and weak), exchange, sub, and/or/xor bit masks, release store and acquire
// load. The race checks treat them as atomics: no finding among them. BUG_PLAIN_STORE: one thread of the second
// wave bumps its LDS bin with a plain load and store among the other waves' atomics: an lds_hazard.
// Usage: hip_atomics BLOCKS [SEED]. Exit 0: every value right; 1: a wrong value; 3: a HIP error (a finding).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr int kThreads = 128;  // two waves
constexpr int kBins = 16;

struct Results {
  unsigned bins[kBins];
  int imax, imin;
  float fmax, fmin;
  unsigned long long sum64, max64;
  int cas_count, cas_weak_count;
  int xchg_final;
  long long xchg_returned;
  int sub_left;
  unsigned or_mask, and_mask, xor_mask;
  int loaded_ok;
};

__global__ void atomics(const int* vals, const float* fvals, Results* r, int n) {
  __shared__ unsigned s_bins[kBins];
  __shared__ int s_flag_data;
  __shared__ int s_flag;
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t < kBins) __hip_atomic_store(&s_bins[t], 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  if (t == 0) {
    s_flag_data = 0;
    __hip_atomic_store(&s_flag, 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  }
  __syncthreads();
  if (i < n) {
    const int v = vals[i];
    const int bin = (v & 0x7fffffff) % kBins;
#ifdef BUG_PLAIN_STORE
    if (t == 70) s_bins[bin] = s_bins[bin] + 1;
    else
#endif
    __hip_atomic_fetch_add(&s_bins[bin], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_max(&r->imax, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_min(&r->imin, v, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_max(&r->fmax, fvals[i], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_min(&r->fmin, fvals[i], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
    const unsigned long long big = (unsigned long long)(unsigned)v << 20;
    __hip_atomic_fetch_add(&r->sum64, big, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_max(&r->max64, big, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    // a counter by compare-and-swap: retry with the value the failed exchange saw
    int seen = __hip_atomic_load(&r->cas_count, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    while (!__hip_atomic_compare_exchange_strong(&r->cas_count, &seen, seen + 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED,
                                                 __HIP_MEMORY_SCOPE_AGENT)) {
    }
    int seen_w = __hip_atomic_load(&r->cas_weak_count, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    while (!__hip_atomic_compare_exchange_weak(&r->cas_weak_count, &seen_w, seen_w + 2, __ATOMIC_SEQ_CST,
                                               __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)) {
    }
    const int old = __hip_atomic_exchange(&r->xchg_final, i + 1, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(&r->xchg_returned, (long long)old, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_sub(&r->sub_left, 3, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_or(&r->or_mask, 1u << (i % 32), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);
    __hip_atomic_fetch_and(&r->and_mask, ~(1u << (i % 31)), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_xor(&r->xor_mask, unsigned(i + 1), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
  // release store of a flag after the data, acquire load of it by the other wave
  if (t == 3) {
    s_flag_data = 41 + blockIdx.x;
    __hip_atomic_store(&s_flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  }
  __syncthreads();
  if (t == 100 && __hip_atomic_load(&s_flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 1 &&
      s_flag_data == 41 + int(blockIdx.x))
    __hip_atomic_fetch_add(&r->loaded_ok, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  if (t < kBins)
    __hip_atomic_fetch_add(&r->bins[t], __hip_atomic_load(&s_bins[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP),
                           __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 4;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
  if (blocks <= 0 || blocks > 256) return 2;
  const int n = blocks * kThreads - 5;  // the last block partly idle
  std::printf("hip_atomics blocks=%d n=%d seed=%llu\n", blocks, n, seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> di(-100000, 100000);
  std::uniform_real_distribution<float> df(-50.0f, 50.0f);
  std::vector<int> vals(static_cast<std::size_t>(n));
  std::vector<float> fvals(static_cast<std::size_t>(n));
  for (int& v : vals) v = di(rng);
  for (float& f : fvals) f = df(rng);

  Results init{};
  init.imax = -1000000;
  init.imin = 1000000;
  init.fmax = -1000.0f;
  init.fmin = 1000.0f;
  init.cas_count = 7;
  init.xchg_final = -9;
  init.sub_left = 100000;
  init.and_mask = 0xffffffffu;
  init.xor_mask = 0x5a5a0000u;

  // The expected values, by hand on the host.
  Results want = init;
  for (int i = 0; i < n; ++i) {
    const int v = vals[std::size_t(i)];
    ++want.bins[(v & 0x7fffffff) % kBins];
    want.imax = std::max(want.imax, v);
    want.imin = std::min(want.imin, v);
    want.fmax = std::max(want.fmax, fvals[std::size_t(i)]);
    want.fmin = std::min(want.fmin, fvals[std::size_t(i)]);
    const unsigned long long big = (unsigned long long)(unsigned)v << 20;
    want.sum64 += big;
    want.max64 = std::max(want.max64, big);
    want.or_mask |= 1u << (i % 32);
    want.and_mask &= ~(1u << (i % 31));
    want.xor_mask ^= unsigned(i + 1);
    want.sub_left -= 3;
  }
  want.cas_count += n;
  want.cas_weak_count += 2 * n;
  want.loaded_ok = blocks;
  // exchange: every value but the last one stored comes back exactly once
  long long stored = init.xchg_final;
  for (int i = 0; i < n; ++i) stored += i + 1;

  int *d_vals;
  float* d_fvals;
  Results* d_r;
  hipMalloc(&d_vals, vals.size() * sizeof(int));
  hipMalloc(&d_fvals, fvals.size() * sizeof(float));
  hipMalloc(&d_r, sizeof(Results));
  hipMemcpy(d_vals, vals.data(), vals.size() * sizeof(int), hipMemcpyHostToDevice);
  hipMemcpy(d_fvals, fvals.data(), fvals.size() * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(d_r, &init, sizeof init, hipMemcpyHostToDevice);
  atomics<<<blocks, kThreads>>>(d_vals, d_fvals, d_r, n);
  Results got{};
  const hipError_t e = hipMemcpy(&got, d_r, sizeof got, hipMemcpyDeviceToHost);
  if (e != hipSuccess) {
    std::printf("HIP error %s (seed %llu)\n", hipGetErrorName(e), seed);
    return 3;
  }
  int bad = 0;
  auto check = [&](const char* what, long double g, long double w) {
    if (g != w && bad++ < 10) std::printf("%s = %.17Lg, want %.17Lg\n", what, g, w);
  };
  for (int b = 0; b < kBins; ++b) check("bins[b]", got.bins[b], want.bins[b]);
  check("imax", got.imax, want.imax);
  check("imin", got.imin, want.imin);
  check("fmax", got.fmax, want.fmax);
  check("fmin", got.fmin, want.fmin);
  check("sum64", got.sum64, want.sum64);
  check("max64", got.max64, want.max64);
  check("cas_count", got.cas_count, want.cas_count);
  check("cas_weak_count", got.cas_weak_count, want.cas_weak_count);
  check("xchg_returned + xchg_final", got.xchg_returned + got.xchg_final, stored);
  check("sub_left", got.sub_left, want.sub_left);
  check("or_mask", got.or_mask, want.or_mask);
  check("and_mask", got.and_mask, want.and_mask);
  check("xor_mask", got.xor_mask, want.xor_mask);
  check("loaded_ok", got.loaded_ok, want.loaded_ok);
  std::printf(bad ? "FAIL (seed %llu)\n" : "PASS\n", seed);
  return bad ? 1 : 0;
}
