// Harness of the consumer's gemv_bf16 kernel, plain HIP host code: draws its own bf16 W [M, K] and x [K] from a
// seeded engine (the seed is printed; values uniform in ±[0.25, 2), never zero), runs the kernel on the sim into a
// poisoned y, and judges y with dsv4check's oracle against the float64 reference of skinny_gemm (x as a [1, K] a,
// W as b), under the op's error-bound policy (reference/ops/skinny_gemm/error_model.md).
// Usage: consumer_gemv [M K SEED]. Prints PASS or FAIL. Exit 0: PASS; 1: FAIL; 2: bad usage; 3: a HIP error (a
// finding of the sim's checks makes hipDeviceSynchronize fail).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "gemv_bf16.h"
#include "oracle/judge.hpp"
#include "reference/registry/registry.hpp"

namespace {

dsv4::Tensor random_bf16(dsv4::Shape shape, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> mag(0.25, 2.0);
  std::bernoulli_distribution neg(0.5);
  dsv4::Tensor t = dsv4::Tensor::empty(dsv4::DType::BF16, std::move(shape));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, neg(rng) ? -mag(rng) : mag(rng));
  return t;
}

bool check(hipError_t e, const char* what) {
  if (e != hipSuccess) std::fprintf(stderr, "%s failed: %s (%s)\n", what, hipGetErrorName(e), hipGetErrorString(e));
  return e == hipSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  const int M = argc > 1 ? std::atoi(argv[1]) : 150;
  const int K = argc > 2 ? std::atoi(argv[2]) : 600;
  const unsigned long long seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 1;
  if (M < 1 || K < 8 || K % 8 != 0) {
    std::fprintf(stderr, "usage: %s [M K SEED] with M >= 1, K >= 8, K %% 8 == 0\n", argv[0]);
    return 2;
  }
  std::printf("consumer gemv_bf16 M=%d K=%d seed=%llu\n", M, K, seed);
  std::mt19937_64 rng(seed);
  dsv4::OpCase c;
  c.inputs["a"] = random_bf16({1, K}, rng);  // x
  c.inputs["b"] = random_bf16({M, K}, rng);  // W
  const dsv4::OpDescriptor& op = dsv4::Registry::instance().get("skinny_gemm");
  const dsv4::Outputs expected = dsv4::run_reference("skinny_gemm", c);

  __hip_bfloat16 *dw, *dx, *dy;
  const std::size_t wb = std::size_t(M) * K * 2, xb = std::size_t(K) * 2, yb = std::size_t(M) * 2;
  if (!check(hipMalloc(&dw, wb), "hipMalloc") || !check(hipMalloc(&dx, xb), "hipMalloc") ||
      !check(hipMalloc(&dy, yb), "hipMalloc") ||
      !check(hipMemcpy(dw, c.in("b").data(), wb, hipMemcpyHostToDevice), "hipMemcpy") ||
      !check(hipMemcpy(dx, c.in("a").data(), xb, hipMemcpyHostToDevice), "hipMemcpy") ||
      !check(hipMemset(dy, 0xFF, yb), "hipMemset"))  // poison: bf16 NaN, so an unwritten output fails
    return 3;
  if (!check(launch_gemv_bf16(dw, dx, dy, M, K, nullptr), "launch_gemv_bf16")) return 3;
  const bool synced = check(hipDeviceSynchronize(), "hipDeviceSynchronize");

  dsv4::Outputs actual{{"out", dsv4::Tensor::empty(dsv4::DType::BF16, {1, M})}};
  if (!check(hipMemcpy(actual.at("out").data(), dy, yb, hipMemcpyDeviceToHost), "hipMemcpy")) return 3;
  hipFree(dw);
  hipFree(dx);
  hipFree(dy);

  // The outputs are judged even after a finding: the verdict shows what the bug did to them.
  const dsv4::oracle::JudgeResult r = dsv4::oracle::judge(op, c, expected, actual);
  for (const dsv4::oracle::Verdict& v : r.outputs) {
    std::printf("%s (%s): %lld of %lld elements failed\n", v.output.c_str(), v.policy.c_str(),
                static_cast<long long>(v.failed), static_cast<long long>(v.checked));
    for (std::size_t i = 0; i < v.worst.size() && i < 3 && !v.pass; ++i)
      std::printf("  y[%lld] = %.6g, reference %.6g, bound %.3g\n", static_cast<long long>(v.worst[i].index.back()),
                  v.worst[i].actual, v.worst[i].expected, v.worst[i].bound);
  }
  std::printf("%s\n", r.pass ? "PASS" : "FAIL");
  return !synced ? 3 : r.pass ? 0 : 1;
}
