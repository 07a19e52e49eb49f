// Host harness of tests/hipsim/gemv_dpp.hip, plain HIP host code: makes a skinny_gemm case with N = 1 (a = x,
// b = W, fp16, no bias) from dsv4check's generator (seeded; the seed is printed), runs launch_gemv_dpp into a
// NaN-poisoned y, decodes every output with reference/formats and compares it with the float64 reference within
// the op's error bound.
// The bound (reference/ops/skinny_gemm/error_model.md) holds for this kernel: each fp16·fp16 product is exact in
// fp32; a v_dot2c step rounds acc + p_lo + p_hi at most twice (the sim: once), each DPP add once, so every
// output is one fp32 summation tree of the K products of depth <= K/64 + 6 <= K + 1, inside
// γ_{K+1}·Σ|w·x| + (K+1)·2^-149, followed by one RNE to fp16 (+ one fp16 ulp of |y| + δ).
// Usage: gemv_dpp K M [SEED]. Exit 0: all within the bound; 1: a mismatch; 2: bad usage; 3: a HIP error (a finding).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "reference/formats/format.hpp"

#include "tests/hipsim/hip_check.hpp"
#include "tests/hipsim/skinny_case.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s K M [SEED]\n", argv[0]);
    return 2;
  }
  const int K = std::atoi(argv[1]), M = std::atoi(argv[2]);
  const unsigned long long seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 1;
  if (K < 8 || K % 8 != 0 || K > kMaxK || M < 1) {
    std::fprintf(stderr, "need 8 <= K <= %d, K %% 8 == 0, M >= 1\n", kMaxK);
    return 2;
  }
  std::printf("gemv_dpp K=%d M=%d seed=%llu\n", K, M, seed);
  const dsv4::hipsim_test::SkinnyCase c = dsv4::hipsim_test::make_skinny_case(1, K, M, "fp16", "none", seed);

  auto upload = [](const std::vector<std::uint16_t>& t, __half** d) {
    const std::size_t bytes = t.size() * 2;
    if (hipMalloc(d, bytes) != hipSuccess) return false;
    return hipMemcpy(*d, t.data(), bytes, hipMemcpyHostToDevice) == hipSuccess;
  };
  __half *w, *x, *y;
  if (!upload(c.b, &w) || !upload(c.a, &x)) return 3;
  HIPSIM_CHECK(hipMalloc(&y, std::size_t(M) * 2));
  HIPSIM_CHECK(hipMemset(y, 0xFF, std::size_t(M) * 2));  // poison: fp16 NaN

  HIPSIM_CHECK(launch_gemv_dpp(w, x, y, K, M, nullptr));
  // A finding makes the sync fail; the outputs are still compared, so a report also shows what the bug did to them.
  const hipError_t sync = hipDeviceSynchronize();
  if (sync != hipSuccess) std::printf("hipDeviceSynchronize: %s\n", hipGetErrorName(sync));

  std::vector<unsigned short> host(M);
  HIPSIM_CHECK(hipMemcpy(host.data(), y, host.size() * 2, hipMemcpyDeviceToHost));
  int bad = 0, nonzero = 0;
  for (int m = 0; m < M; ++m) {
    const double got = dsv4::formats::decode(dsv4::formats::Format::fp16, host[m]);
    const double want = c.want[m], tol = c.tol[m];
    nonzero += want != 0.0;
    if (!(std::fabs(got - want) <= tol)) {
      if (bad < 8) std::printf("mismatch y[%d] = %.8g, reference %.8g, bound %.3g\n", m, got, want, tol);
      ++bad;
    }
  }
  HIPSIM_CHECK(hipFree(w));
  HIPSIM_CHECK(hipFree(x));
  HIPSIM_CHECK(hipFree(y));
  if (nonzero == 0) {
    std::printf("FAIL: the reference is all zeros, the case tests nothing\n");
    return 1;
  }
  std::printf("%s: %d of %d outputs outside the error bound\n", bad ? "FAIL" : "PASS", bad, M);
  return sync != hipSuccess ? 3 : bad ? 1 : 0;
}
