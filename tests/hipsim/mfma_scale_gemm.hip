// The gfx950 scaled MFMAs (V_MFMA_SCALE_F32_16X16X128_F8F6F4 / _32X32X64_) composed into an OCP MX block-scaled
// GEMM, written in plain HIP the way a user writes it: D[M,N] = sum_k (A[i][k] * 2^(SA[i][k/32]-127)) *
// (B[k][j] * 2^(SB[k/32][j]-127)), A and B in any of fp8 e4m3, bf8 e5m2, fp6 e2m3, bf6 e3m2, fp4 e2m1 (every pair),
// one e8m0 scale per row of A (column of B) and 32 k. One wave per TxT output tile; each lane packs its operand by the
// CDNA4 ISA guide (7.1.4 items packed densely, low bits first; lane l feeds row (column) l % T; fp6/fp4: k = k0 +
// 32*(l/T) + e; fp8 (7.1.5.1): k = k0 + (KI/2)*(e/16) + 16*(l/T) + e%16) and supplies the scale of its row's k group
// k0/32 + l/T in byte OPSEL of its scale VGPR (7.2.1; the other bytes 0xFF, NaN). Zero-padded past M, N and K.
// Compared with a float64 reference over random shapes (seed printed) and random finite codes and scales.
// Error bound: every scaled product of two <= 8-bit floats is exact, so the only error is the fp32 summation of K
// products, in any order: |D - ref| <= gamma_K * sum_k |p_k|, gamma_K = K*u / (1 - K*u), u = 2^-24 (Higham).
// BUG_A_FP8_CONTIGUOUS (A's fp8/bf8 operand packed as 32 consecutive k per lane, the fp6/fp4 rule) must be reported.
// Usage: mfma_scale_gemm <seed> <shapes> [M N K]   (M N K: that one shape, `shapes` times)
#include <hip/hip_runtime.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "reference/formats/format.hpp"

typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef int intx8 __attribute__((ext_vector_type(8)));

namespace fmt = dsv4::formats;

// The cbsz / blgp format immediates (CDNA4 ISA guide 7.1.5) and their widths.
__host__ __device__ constexpr int width_of(int sel) { return sel <= 1 ? 8 : sel <= 3 ? 6 : 4; }
const fmt::Format kFormats[5] = {fmt::Format::e4m3fn, fmt::Format::e5m2, fmt::Format::e2m3fn, fmt::Format::e3m2fn,
                                 fmt::Format::e2m1fn};

template <int T>
struct Scaled;
template <>
struct Scaled<16> {
  static constexpr int KI = 128, R = 4;
  using VD = floatx4;
  template <int FA, int FB, int OPSEL>
  __device__ static VD run(intx8 a, intx8 b, VD c, int sa, int sb) {
    return __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a, b, c, FA, FB, OPSEL, sa, OPSEL, sb);
  }
};
template <>
struct Scaled<32> {
  static constexpr int KI = 64, R = 16;
  using VD = floatx16;
  template <int FA, int FB, int OPSEL>
  __device__ static VD run(intx8 a, intx8 b, VD c, int sa, int sb) {
    return __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a, b, c, FA, FB, OPSEL, sa, OPSEL, sb);
  }
};

// k of item e in the operand of a lane of k group g (see the header comment).
__device__ int k_of(int w, int KI, int k0, int g, int e, bool contiguous) {
  if (w == 8 && !contiguous) return k0 + (KI / 2) * (e / 16) + 16 * g + e % 16;
  return k0 + 32 * g + e;
}

// 32 codes of w bits, item e at bits [w*e+w-1 : w*e] of the 256-bit operand.
template <class F>
__device__ intx8 pack(int w, F code) {
  unsigned char bytes[32] = {};
  for (int e = 0; e < 32; ++e) {
    const unsigned c = code(e);
    for (int i = 0; i < w; ++i)
      if ((c >> i) & 1u) bytes[(w * e + i) / 8] |= (unsigned char)(1u << ((w * e + i) % 8));
  }
  intx8 v;
  std::memcpy(&v, bytes, sizeof v);
  return v;
}

template <int T, int FA, int FB, int OPSEL>
__global__ void mx_gemm(const unsigned char* A, const unsigned char* B, const unsigned char* SA,
                        const unsigned char* SB, float* D, int M, int N, int K) {
  using I = Scaled<T>;
  const int l = threadIdx.x, r = l % T, g = l / T;
  const int tm = blockIdx.y * T, tn = blockIdx.x * T, KG = (K + 31) / 32;
  const int row = tm + r, col = tn + r;
#if defined(BUG_A_FP8_CONTIGUOUS)
  constexpr bool a_contiguous = true;
#else
  constexpr bool a_contiguous = false;
#endif
  typename I::VD acc = {};
  for (int k0 = 0; k0 < K; k0 += I::KI) {
    const intx8 a = pack(width_of(FA), [&](int e) -> unsigned {
      const int k = k_of(width_of(FA), I::KI, k0, g, e, a_contiguous);
      return row < M && k < K ? A[std::size_t(row) * K + k] : 0u;
    });
    const intx8 b = pack(width_of(FB), [&](int e) -> unsigned {
      const int k = k_of(width_of(FB), I::KI, k0, g, e, false);
      return col < N && k < K ? B[std::size_t(k) * N + col] : 0u;
    });
    const int kg = k0 / 32 + g;
    const unsigned sa = row < M && kg < KG ? SA[std::size_t(row) * KG + kg] : 127u;
    const unsigned sb = col < N && kg < KG ? SB[std::size_t(kg) * N + col] : 127u;
    const unsigned others = ~(0xFFu << (8 * OPSEL));
    acc = I::template run<FA, FB, OPSEL>(a, b, acc, int(others | (sa << (8 * OPSEL))),
                                         int(others | (sb << (8 * OPSEL))));
  }
  constexpr int G = 64 / T;
  for (int q = 0; q < I::R; ++q) {
    const int i = tm + 4 * G * (q / 4) + 4 * (l / T) + q % 4, j = tn + r;
    if (i < M && j < N) D[std::size_t(i) * N + j] = acc[q];
  }
}

// Random finite codes: every code of fp6/fp4; fp8/bf8 codes of magnitude in [2^-6, 2^6] or zero.
std::vector<unsigned char> random_codes(fmt::Format f, std::size_t n, std::mt19937_64& rng) {
  std::vector<unsigned char> v(n);
  const std::uint32_t count = fmt::info(f).code_count();
  for (auto& c : v)
    for (;;) {
      const std::uint32_t x = std::uint32_t(rng() % count);
      const double d = fmt::decode(f, x);
      if (d == 0 || (std::isfinite(d) && std::fabs(d) >= 0x1p-6 && std::fabs(d) <= 0x1p6)) {
        c = (unsigned char)x;
        break;
      }
    }
  return v;
}
std::vector<unsigned char> random_scales(std::size_t n, std::mt19937_64& rng) {
  std::vector<unsigned char> v(n);
  for (auto& s : v) s = (unsigned char)(127 - 6 + int(rng() % 13));  // 2^-6 .. 2^6
  return v;
}

using Launch = void (*)(const unsigned char*, const unsigned char*, const unsigned char*, const unsigned char*,
                        float*, int, int, int, dim3);
template <int T, int FA, int FB>
void launch(const unsigned char* a, const unsigned char* b, const unsigned char* sa, const unsigned char* sb,
            float* d, int M, int N, int K, dim3 grid) {
  mx_gemm<T, FA, FB, (FA + 2 * FB) % 4><<<grid, 64>>>(a, b, sa, sb, d, M, N, K);  // op_sel varies with the pair
}
template <int T, int FA, int... FB>
constexpr std::array<Launch, 5> row_of(std::integer_sequence<int, FB...>) {
  return {launch<T, FA, FB>...};
}
template <int T, int... FA>
constexpr std::array<std::array<Launch, 5>, 5> table_of(std::integer_sequence<int, FA...>) {
  return {row_of<T, FA>(std::make_integer_sequence<int, 5>{})...};
}

int run_shape(int T, int fa, int fb, int M, int N, int K, std::mt19937_64& rng, double& worst) {
  static const auto t16 = table_of<16>(std::make_integer_sequence<int, 5>{});
  static const auto t32 = table_of<32>(std::make_integer_sequence<int, 5>{});
  const fmt::Format FA = kFormats[fa], FB = kFormats[fb];
  const int KG = (K + 31) / 32;
  const auto a = random_codes(FA, std::size_t(M) * K, rng), b = random_codes(FB, std::size_t(K) * N, rng);
  const auto sa = random_scales(std::size_t(M) * KG, rng), sb = random_scales(std::size_t(KG) * N, rng);
  unsigned char *da = nullptr, *db = nullptr, *dsa = nullptr, *dsb = nullptr;
  float* dd = nullptr;
  hipMalloc(&da, a.size());
  hipMalloc(&db, b.size());
  hipMalloc(&dsa, sa.size());
  hipMalloc(&dsb, sb.size());
  hipMalloc(&dd, std::size_t(M) * N * sizeof(float));
  hipMemcpy(da, a.data(), a.size(), hipMemcpyHostToDevice);
  hipMemcpy(db, b.data(), b.size(), hipMemcpyHostToDevice);
  hipMemcpy(dsa, sa.data(), sa.size(), hipMemcpyHostToDevice);
  hipMemcpy(dsb, sb.data(), sb.size(), hipMemcpyHostToDevice);
  const dim3 grid((N + T - 1) / T, (M + T - 1) / T);
  (T == 16 ? t16 : t32)[std::size_t(fa)][std::size_t(fb)](da, db, dsa, dsb, dd, M, N, K, grid);
  std::vector<float> d(std::size_t(M) * N);
  const bool launched = hipDeviceSynchronize() == hipSuccess;
  hipMemcpy(d.data(), dd, d.size() * sizeof(float), hipMemcpyDeviceToHost);
  hipFree(da), hipFree(db), hipFree(dsa), hipFree(dsb), hipFree(dd);
  const std::string name = std::string(T == 16 ? "scale_16x16x128" : "scale_32x32x64") + " " +
                           std::string(fmt::name(FA)) + " x " + std::string(fmt::name(FB));
  if (!launched) {
    std::printf("FAIL %s M %d N %d K %d: launch failed\n", name.c_str(), M, N, K);
    return 1;
  }
  const double u = 0x1p-24, gamma = K * u / (1 - K * u);
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const double p = fmt::decode(FA, a[std::size_t(i) * K + k]) * fmt::decode(FB, b[std::size_t(k) * N + j]) *
                         std::ldexp(1.0, int(sa[std::size_t(i) * KG + k / 32]) - 127) *
                         std::ldexp(1.0, int(sb[std::size_t(k / 32) * N + j]) - 127);
        ref += p;  // float64: its own error (<= K * 2^-53 * mag) is far below the bound
        mag += std::fabs(p);
      }
      const double err = std::fabs(double(d[std::size_t(i) * N + j]) - ref), bound = gamma * mag * (1 + 1e-9);
      if (mag > 0) worst = std::fmax(worst, err / (gamma * mag));
      if (!(err <= bound)) {
        if (bad < 3)
          std::printf("FAIL %s M %d N %d K %d: D[%d][%d] = %.9g, reference %.9g, error %.3g > bound %.3g\n",
                      name.c_str(), M, N, K, i, j, double(d[std::size_t(i) * N + j]), ref, err, bound);
        ++bad;
      }
    }
  return bad;
}

int main(int argc, char** argv) {
  const unsigned long long seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  const int shapes = argc > 2 ? std::atoi(argv[2]) : 2;
  std::printf("mfma_scale_gemm seed %llu shapes %d (rerun: %s %llu %d%s%s%s%s%s%s)\n", seed, shapes, argv[0], seed,
              shapes, argc > 5 ? " " : "", argc > 5 ? argv[3] : "", argc > 5 ? " " : "", argc > 5 ? argv[4] : "",
              argc > 5 ? " " : "", argc > 5 ? argv[5] : "");
  std::mt19937_64 rng(seed);
  int bad = 0;
  double worst = 0;
  for (int s = 0; s < shapes; ++s) {
    int M = 1 + int(rng() % 50), N = 1 + int(rng() % 50), K = 1 + int(rng() % 300);
    if (argc > 5) M = std::atoi(argv[3]), N = std::atoi(argv[4]), K = std::atoi(argv[5]);
    std::printf("shape %d: M %d N %d K %d, every A x B format pair on both instructions\n", s, M, N, K);
    for (const int T : {16, 32})
      for (int fa = 0; fa < 5; ++fa)
        for (int fb = 0; fb < 5; ++fb) bad += run_shape(T, fa, fb, M, N, K, rng, worst);
  }
  std::printf("worst error / bound: %.3g\n", worst);
  if (bad) std::printf("FAIL %d element(s) out of bound\n", bad);
  else std::printf("PASS\n");
  return bad ? 1 : 0;
}
