// Host harness of tests/hipsim/skinny_splitk.hip, plain HIP host code: makes a skinny_gemm case with dsv4check's
// generator (seeded; the seed is printed), runs the kernel (launch_skinny_splitk, <<<>>>) into a poisoned output, and compares every
// output with the float64 reference within the op's error bound (reference/ops/skinny_gemm/error_model.md).
// Usage: skinny_splitk N K M [SEED]. Exit 0: all within the bound; 1: a mismatch; 2: bad usage; 3: a HIP error
// (a finding).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tests/hipsim/skinny_case.hpp"

#include "tests/hipsim/hip_check.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s N K M [SEED]\n", argv[0]);
    return 2;
  }
  const int N = std::atoi(argv[1]), K = std::atoi(argv[2]), M = std::atoi(argv[3]);
  const unsigned long long seed = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 1;
  if (N < 1 || N > kMaxN || K < 8 || K % 8 != 0 || M < 1) {
    std::fprintf(stderr, "need 1 <= N <= %d, K %% 8 == 0, M >= 1\n", kMaxN);
    return 2;
  }
  std::printf("skinny_splitk N=%d K=%d M=%d seed=%llu\n", N, K, M, seed);
  const dsv4::hipsim_test::SkinnyCase c = dsv4::hipsim_test::make_skinny_case(N, K, M, "bf16", "m", seed);

  auto upload = [](const std::vector<std::uint16_t>& t, __hip_bfloat16** d) {
    const std::size_t bytes = t.size() * 2;
    if (hipMalloc(d, bytes) != hipSuccess) return false;
    return hipMemcpy(*d, t.data(), bytes, hipMemcpyHostToDevice) == hipSuccess;
  };
  __hip_bfloat16 *a, *b, *bias, *out;
  if (!upload(c.a, &a) || !upload(c.b, &b) || !upload(c.bias, &bias)) return 3;
  HIPSIM_CHECK(hipMalloc(&out, std::size_t(N) * M * 2));
  HIPSIM_CHECK(hipMemset(out, 0xFF, std::size_t(N) * M * 2));  // poison: bf16 NaN

  HIPSIM_CHECK(launch_skinny_splitk(a, b, bias, out, N, K, M, nullptr));
  // A finding makes the sync fail; the outputs are still compared, so a report also shows what the bug did to them.
  const hipError_t sync = hipDeviceSynchronize();
  if (sync != hipSuccess) std::printf("hipDeviceSynchronize: %s\n", hipGetErrorName(sync));

  std::vector<unsigned short> host(std::size_t(N) * M);
  HIPSIM_CHECK(hipMemcpy(host.data(), out, host.size() * 2, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int n = 0; n < N; ++n)
    for (int m = 0; m < M; ++m) {
      const float got = float(__ushort_as_bfloat16(host[std::size_t(n) * M + m]));
      const double want = c.want[std::size_t(n) * M + m], tol = c.tol[std::size_t(n) * M + m];
      if (!(std::fabs(double(got) - want) <= tol)) {
        if (bad < 8) std::printf("mismatch out[%d,%d] = %.8g, reference %.8g, bound %.3g\n", n, m, got, want, tol);
        ++bad;
      }
    }
  HIPSIM_CHECK(hipFree(a));
  HIPSIM_CHECK(hipFree(b));
  HIPSIM_CHECK(hipFree(bias));
  HIPSIM_CHECK(hipFree(out));
  std::printf("%s: %d of %d outputs outside the error bound\n", bad ? "FAIL" : "PASS", bad, N * M);
  return sync != hipSuccess ? 3 : bad ? 1 : 0;
}
