// A skinny_gemm case for the plain-HIP harnesses (skinny_harness.hpp, gemv_harness.hpp) in standard types only:
// inputs from dsv4check's seeded generator, the float64 reference and its error bound (skinny_case.cpp, built once
// by the project's compiler), so the harnesses, compiled by clang-22 with the hipsim pass once per variant, do not
// parse the registry and nlohmann-json.
#pragma once
#include <cstdint>
#include <vector>

namespace dsv4::hipsim_test {

struct SkinnyCase {
  std::vector<std::uint16_t> a, b, bias;  // the inputs' 16-bit codes (bf16 or fp16), row-major; bias empty for "none"
  std::vector<double> want, tol;          // reference out[n, m] and its error bound, row-major N x M
};

// op.generate with {N, K, M, dtype, bias} from mt19937_64(seed), then run_reference and error_bound.
SkinnyCase make_skinny_case(int N, int K, int M, const char* dtype, const char* bias, unsigned long long seed);

}  // namespace dsv4::hipsim_test
