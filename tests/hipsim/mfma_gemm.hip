// MFMA tiles composed into a GEMM, written in plain HIP the way a user writes it: D[M,N] = A[M,K] * B[K,N] with one
// wave per output tile, each lane loading its A row / B column slice by the ISA layout (CDNA3 ISA guide, "Matrix
// Arithmetic Instructions": lane l feeds row (column) l % T at k = k0 + P*(l/T) + e, and holds D rows
// 4G*(q/4) + 4*(l/T) + q%4 of column l % T in register q, G = 64/T), zero-padded past M, N and K. Compared with a
// float64 reference over random shapes (seed printed) and random finite inputs.
// Error bound: every product of two 16-bit or 8-bit floats is exact in fp32 (MFMA products are exact), so the only
// error is the fp32 summation of K products into the accumulator, in whatever order the instruction uses:
// |D - ref| <= gamma_K * sum_k |a_ik * b_kj| with gamma_K = K*u / (1 - K*u), u = 2^-24 (Higham, recursive summation
// of K terms in any order). A consistent permutation of k in both A and B would not change the product, which is
// why the layout test exists; BUG_A_K_ORDER (A's k order reversed within each lane) must be reported here.
// The i8 forms (i32_16x16x32_i8; on gfx950 also i32_16x16x64_i8) over random signed bytes: their int32 sum is exact
// (|D| <= K * 2^14 < 2^24, no wrap, and exact when written to the float D), so D must equal the int64 reference.
// And one tile whose int32 sum passes INT32_MAX: it must wrap modulo 2^32 (CDNA4 ISA guide 7.1.2, no clamp).
// Usage: mfma_gemm <seed> <shapes> [M N K]   (M N K: that one shape, `shapes` times)
#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "reference/formats/format.hpp"

typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef short short4_t __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8_t __attribute__((ext_vector_type(8)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef int intx4 __attribute__((ext_vector_type(4)));

namespace fmt = dsv4::formats;

template <int Inst>
struct Mfma;
template <>
struct Mfma<0> {  // 16x16x16 bf16
  static constexpr int T = 16, KI = 16, P = 4, R = 4;
  using Code = std::uint16_t;
  using VA = short4_t;
  using VD = floatx4;
  static constexpr const char* name = "mfma_f32_16x16x16bf16_1k";
  __device__ static VD run(VA a, VA b, VD c) { return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0); }
};
template <>
struct Mfma<1> {  // 32x32x8 f16
  static constexpr int T = 32, KI = 8, P = 4, R = 16;
  using Code = std::uint16_t;
  using VA = half4_t;
  using VD = floatx16;
  static constexpr const char* name = "mfma_f32_32x32x8f16";
  __device__ static VD run(VA a, VA b, VD c) { return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0); }
};
#if !defined(__gfx90a__)
template <>
struct Mfma<2> {  // 16x16x32 fp8 x fp8 (not on gfx90a)
  static constexpr int T = 16, KI = 32, P = 8, R = 4;
  using Code = std::uint8_t;
  using VA = long;
  using VD = floatx4;
  static constexpr const char* name = "mfma_f32_16x16x32_fp8_fp8";
  __device__ static VD run(VA a, VA b, VD c) { return __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, 0, 0, 0); }
};
#endif
#if !defined(__gfx90a__)
template <>
struct Mfma<4> {  // 16x16x32 i8 (not on gfx90a)
  static constexpr int T = 16, KI = 32, P = 8, R = 4;
  using Code = std::uint8_t;
  using VA = long;
  using VD = intx4;
  static constexpr const char* name = "mfma_i32_16x16x32_i8";
  __device__ static VD run(VA a, VA b, VD c) { return __builtin_amdgcn_mfma_i32_16x16x32_i8(a, b, c, 0, 0, 0); }
};
#endif
#if defined(__gfx950__)
template <>
struct Mfma<5> {  // 16x16x64 i8 (gfx950)
  static constexpr int T = 16, KI = 64, P = 16, R = 4;
  using Code = std::uint8_t;
  using VA = intx4;
  using VD = intx4;
  static constexpr const char* name = "mfma_i32_16x16x64_i8";
  __device__ static VD run(VA a, VA b, VD c) { return __builtin_amdgcn_mfma_i32_16x16x64_i8(a, b, c, 0, 0, 0); }
};
template <>
struct Mfma<3> {  // 16x16x32 bf16 (gfx950)
  static constexpr int T = 16, KI = 32, P = 8, R = 4;
  using Code = std::uint16_t;
  using VA = bf16x8_t;
  using VD = floatx4;
  static constexpr const char* name = "mfma_f32_16x16x32_bf16";
  __device__ static VD run(VA a, VA b, VD c) { return __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0); }
};
#endif

template <int Inst>
__global__ void gemm(const typename Mfma<Inst>::Code* A, const typename Mfma<Inst>::Code* B, float* D, int M, int N,
                     int K) {
  using I = Mfma<Inst>;
  using Code = typename I::Code;
  const int l = threadIdx.x;
  const int tm = blockIdx.y * I::T, tn = blockIdx.x * I::T;
  const int r = l % I::T, kg = l / I::T;  // the row of A / column of B this lane feeds, and its k group
  typename I::VD acc = {};
  for (int k0 = 0; k0 < K; k0 += I::KI) {
    Code a[I::P], b[I::P];
    for (int e = 0; e < I::P; ++e) {
      const int k = k0 + kg * I::P + e;
#if defined(BUG_A_K_ORDER)
      const int ka = k0 + kg * I::P + (I::P - 1 - e);
#else
      const int ka = k;
#endif
      a[e] = (tm + r < M && ka < K) ? A[std::size_t(tm + r) * K + ka] : Code(0);
      b[e] = (tn + r < N && k < K) ? B[std::size_t(k) * N + tn + r] : Code(0);
    }
    typename I::VA va, vb;
    std::memcpy(&va, a, sizeof va);
    std::memcpy(&vb, b, sizeof vb);
    acc = I::run(va, vb, acc);
  }
  constexpr int G = 64 / I::T;
  for (int q = 0; q < I::R; ++q) {
    const int i = tm + 4 * G * (q / 4) + 4 * (l / I::T) + q % 4, j = tn + r;
    if (i < M && j < N) D[std::size_t(i) * N + j] = float(acc[q]);
  }
}

// Random finite codes with magnitudes in [2^-6, 2^6] (or zero, rarely), so no product or sum leaves fp32's range.
template <class Code>
std::vector<Code> random_codes(fmt::Format f, std::size_t n, std::mt19937_64& rng) {
  std::vector<Code> v(n);
  const std::uint32_t count = fmt::info(f).code_count();
  for (auto& c : v)
    for (;;) {
      const std::uint32_t x = std::uint32_t(rng() % count);
      const double d = fmt::decode(f, x);
      if (d == 0 || (std::isfinite(d) && std::fabs(d) >= 0x1p-6 && std::fabs(d) <= 0x1p6)) {
        c = Code(x);
        break;
      }
    }
  return v;
}

template <int Inst>
int run_shape(fmt::Format f, int M, int N, int K, std::mt19937_64& rng, double& worst) {
  using I = Mfma<Inst>;
  using Code = typename I::Code;
  const auto a = random_codes<Code>(f, std::size_t(M) * K, rng), b = random_codes<Code>(f, std::size_t(K) * N, rng);
  Code *da = nullptr, *db = nullptr;
  float* dd = nullptr;
  hipMalloc(&da, a.size() * sizeof(Code));
  hipMalloc(&db, b.size() * sizeof(Code));
  hipMalloc(&dd, std::size_t(M) * N * sizeof(float));
  hipMemcpy(da, a.data(), a.size() * sizeof(Code), hipMemcpyHostToDevice);
  hipMemcpy(db, b.data(), b.size() * sizeof(Code), hipMemcpyHostToDevice);
  const dim3 grid((N + I::T - 1) / I::T, (M + I::T - 1) / I::T);
  const auto t0 = std::chrono::steady_clock::now();
  gemm<Inst><<<grid, 64>>>(da, db, dd, M, N, K);
  std::vector<float> d(std::size_t(M) * N);
  const bool launched = hipDeviceSynchronize() == hipSuccess;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long mfmas = long(grid.x) * grid.y * ((K + I::KI - 1) / I::KI);
  std::printf("  %s: %ld MFMA in %.3f s on the sim\n", I::name, mfmas, secs);
  hipMemcpy(d.data(), dd, d.size() * sizeof(float), hipMemcpyDeviceToHost);
  hipFree(da), hipFree(db), hipFree(dd);
  if (!launched) {
    std::printf("FAIL %s M %d N %d K %d: launch failed\n", I::name, M, N, K);
    return 1;
  }
  const double u = 0x1p-24, gamma = K * u / (1 - K * u);
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const double p = fmt::decode(f, a[std::size_t(i) * K + k]) * fmt::decode(f, b[std::size_t(k) * N + j]);
        ref += p;  // float64: its own error (<= K * 2^-53 * mag) is far below the bound
        mag += std::fabs(p);
      }
      const double err = std::fabs(double(d[std::size_t(i) * N + j]) - ref), bound = gamma * mag * (1 + 1e-9);
      if (mag > 0) worst = std::fmax(worst, err / (gamma * mag));
      if (!(err <= bound)) {
        if (bad < 4)
          std::printf("FAIL %s M %d N %d K %d: D[%d][%d] = %.9g, reference %.9g, error %.3g > bound %.3g\n", I::name,
                      M, N, K, i, j, double(d[std::size_t(i) * N + j]), ref, err, bound);
        ++bad;
      }
    }
  return bad;
}

// C = INT32_MAX - 1000 plus K products 127 * 127 per element: D must be that sum modulo 2^32.
template <int Inst>
__global__ void i8_wrap(int* D) {
  using I = Mfma<Inst>;
  typename I::VA a;
  std::memset(&a, 0x7F, sizeof a);
  typename I::VD c;
  for (int q = 0; q < I::R; ++q) c[q] = 0x7FFFFFFF - 1000;
  const typename I::VD d = I::run(a, a, c);
  for (int q = 0; q < I::R; ++q) D[threadIdx.x * I::R + q] = d[q];
}
template <int Inst>
int run_i8_wrap() {
  using I = Mfma<Inst>;
  int* dd = nullptr;
  hipMalloc(&dd, 64 * I::R * sizeof(int));
  i8_wrap<Inst><<<1, 64>>>(dd);
  std::vector<int> d(64 * I::R);
  const bool launched = hipDeviceSynchronize() == hipSuccess;
  hipMemcpy(d.data(), dd, d.size() * sizeof(int), hipMemcpyDeviceToHost);
  hipFree(dd);
  const int want = int(std::uint32_t(0x7FFFFFFF - 1000) + std::uint32_t(I::KI * 127 * 127));
  int bad = launched ? 0 : 1;
  for (const int v : d) bad += v != want;
  std::printf("%s %s wraps past INT32_MAX: D = %d, want %d\n", bad ? "FAIL" : "ok  ", I::name, launched ? d[0] : 0,
              want);
  return bad;
}

// The i8 forms: random signed bytes, D against the exact int64 sum.
template <int Inst>
int run_shape_i8(int M, int N, int K, std::mt19937_64& rng) {
  using I = Mfma<Inst>;
  std::vector<std::uint8_t> a(std::size_t(M) * K), b(std::size_t(K) * N);
  for (auto& x : a) x = std::uint8_t(rng());
  for (auto& x : b) x = std::uint8_t(rng());
  std::uint8_t *da = nullptr, *db = nullptr;
  float* dd = nullptr;
  hipMalloc(&da, a.size());
  hipMalloc(&db, b.size());
  hipMalloc(&dd, std::size_t(M) * N * sizeof(float));
  hipMemcpy(da, a.data(), a.size(), hipMemcpyHostToDevice);
  hipMemcpy(db, b.data(), b.size(), hipMemcpyHostToDevice);
  const dim3 grid((N + I::T - 1) / I::T, (M + I::T - 1) / I::T);
  gemm<Inst><<<grid, 64>>>(da, db, dd, M, N, K);
  std::vector<float> d(std::size_t(M) * N);
  const bool launched = hipDeviceSynchronize() == hipSuccess;
  hipMemcpy(d.data(), dd, d.size() * sizeof(float), hipMemcpyDeviceToHost);
  hipFree(da), hipFree(db), hipFree(dd);
  if (!launched) {
    std::printf("FAIL %s M %d N %d K %d: launch failed\n", I::name, M, N, K);
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long ref = 0;
      for (int k = 0; k < K; ++k)
        ref += (long long)std::int8_t(a[std::size_t(i) * K + k]) * std::int8_t(b[std::size_t(k) * N + j]);
      if (double(d[std::size_t(i) * N + j]) != double(ref)) {
        if (bad < 4)
          std::printf("FAIL %s M %d N %d K %d: D[%d][%d] = %.0f, reference %lld\n", I::name, M, N, K, i, j,
                      double(d[std::size_t(i) * N + j]), ref);
        ++bad;
      }
    }
  return bad;
}

int main(int argc, char** argv) {
  const unsigned long long seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  const int shapes = argc > 2 ? std::atoi(argv[2]) : 6;
  std::printf("mfma_gemm seed %llu shapes %d (rerun: %s %llu %d%s%s%s%s%s%s)\n", seed, shapes, argv[0], seed, shapes,
              argc > 5 ? " " : "", argc > 5 ? argv[3] : "", argc > 5 ? " " : "", argc > 5 ? argv[4] : "",
              argc > 5 ? " " : "", argc > 5 ? argv[5] : "");
  std::mt19937_64 rng(seed);
#if defined(__gfx950__)
  const fmt::Format fp8 = fmt::Format::e4m3fn;
#elif !defined(__gfx90a__)
  const fmt::Format fp8 = fmt::Format::e4m3fnuz;
#endif
  int bad = 0;
  double worst = 0;
#if !defined(__gfx90a__)
  bad += run_i8_wrap<4>();
#endif
#if defined(__gfx950__)
  bad += run_i8_wrap<5>();
#endif
  for (int s = 0; s < shapes; ++s) {
    int M = 1 + int(rng() % 70), N = 1 + int(rng() % 70), K = 1 + int(rng() % 300);
    if (argc > 5) M = std::atoi(argv[3]), N = std::atoi(argv[4]), K = std::atoi(argv[5]);
    std::printf("shape %d: M %d N %d K %d\n", s, M, N, K);
    bad += run_shape<0>(fmt::Format::bf16, M, N, K, rng, worst);
    bad += run_shape<1>(fmt::Format::fp16, M, N, K, rng, worst);
#if !defined(__gfx90a__)
    bad += run_shape<2>(fp8, M, N, K, rng, worst);
#endif
#if !defined(__gfx90a__)
    bad += run_shape_i8<4>(M, N, K, rng);
#endif
#if defined(__gfx950__)
    bad += run_shape<3>(fmt::Format::bf16, M, N, K, rng, worst);
    bad += run_shape_i8<5>(M, N, K, rng);
#endif
  }
  std::printf("worst error / bound: %.3g\n", worst);
  if (bad) std::printf("FAIL %d element(s) out of bound\n", bad);
  else std::printf("PASS\n");
  return bad ? 1 : 0;
}
