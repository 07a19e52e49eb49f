// kernels/nvidia/port/wgmma.hpp on whatever backend this build has (cuda: the wgmma instructions on an sm_90 device; sim:
// the scalar emulation at the hardware's swizzled addresses): D = A·B (+ C) for one warpgroup, 64 x N x 64, every
// N the wrapper offers, both element types, with and without the accumulator input. Values on a coarse grid make
// every sum exact in fp32, so the layout check is bitwise; random normal values are checked to fp32 accuracy.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/nvidia/port/mma_test_values.hpp"
#include "tests/kernels/nvidia/port/sm90_feature_test.hpp"
#include "tests/kernels/nvidia/port/wgmma_test_kernel.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;

// Returns the number of elements of D off by more than tol_rel · (sum |a·b| + |c|) (0 = exact).
int run_and_count(int n, bool f16, bool accumulate, bool grid, std::mt19937_64& rng, double tol_rel) {
  std::uniform_int_distribution<int> small(-255, 255), cdist(-100000, 100000);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> av(64 * 64), bv(static_cast<std::size_t>(n) * 64), ad, bd;
  for (auto& x : av) x = grid ? small(rng) / 64.0 : nd(rng);
  for (auto& x : bv) x = grid ? small(rng) / 64.0 : nd(rng);
  const auto a_codes = encode(f16, av, ad), b_codes = encode(f16, bv, bd);
  std::vector<float> c(static_cast<std::size_t>(64) * n);
  for (auto& x : c) x = grid ? static_cast<float>(cdist(rng) / 4096.0) : static_cast<float>(nd(rng));
  port::DeviceBuffer a = port::DeviceBuffer::from_host<std::uint16_t>(a_codes);
  port::DeviceBuffer b = port::DeviceBuffer::from_host<std::uint16_t>(b_codes);
  port::DeviceBuffer cb = port::DeviceBuffer::from_host<float>(c);
  port::DeviceBuffer d(c.size() * 4);
  d.memset(0xff);  // poison: NaN
  port::Stream s;
  wgmmak::wgmma_tile(static_cast<const std::uint16_t*>(a.data()), static_cast<const std::uint16_t*>(b.data()),
                     static_cast<const float*>(cb.data()), static_cast<float*>(d.data()), n, f16, accumulate, s);
  s.synchronize();
  const std::vector<float> got = d.to_host<float>();
  int bad = 0;
  for (int m = 0; m < 64; ++m)
    for (int j = 0; j < n; ++j) {
      double ref = accumulate ? c[m * n + j] : 0.0, scale = std::fabs(ref);
      for (int k = 0; k < 64; ++k) {
        const double prod = ad[m * 64 + k] * bd[j * 64 + k];
        ref += prod;
        scale += std::fabs(prod);
      }
      const double g = got[m * n + j];
      if (!(std::fabs(g - ref) <= tol_rel * scale)) {
        if (bad < 3) ADD_FAILURE() << "n=" << n << " D[" << m << "][" << j << "] = " << g << " expected " << ref;
        ++bad;
      }
    }
  return bad;
}

using PortWgmma = Sm90FeatureTest;

std::string what(int n, bool f16, bool acc) {
  return std::string(f16 ? "fp16" : "bf16") + " n=" + std::to_string(n) + (acc ? " D=A·B+C" : " D=A·B");
}

TEST_F(PortWgmma, GridValuesAreExactForEveryN) {
  auto rng = rng_for_current_test();
  for (bool f16 : {false, true})
    for (int n : {8, 16, 32, 64, 128})
      for (bool acc : {true, false}) EXPECT_EQ(run_and_count(n, f16, acc, true, rng, 0.0), 0) << what(n, f16, acc);
}

TEST_F(PortWgmma, RandomValuesToFp32Accuracy) {
  auto rng = rng_for_current_test();
  for (bool f16 : {false, true})
    for (int n : {8, 128})
      EXPECT_EQ(run_and_count(n, f16, true, false, rng, std::ldexp(1.0, -20)), 0) << what(n, f16, true);
}

// The sim performs a batch's MMAs at the wait that retires it (the latest the hardware may read the operands): a
// B tile zeroed between the commit and the wait gives D = A·0 + C = C exactly. A synchronous emulation would give
// A·B + C and hide a kernel that refills an operand tile before retiring the MMAs that read it.
TEST_F(PortWgmma, SimPerformsTheMmasAtTheWaitThatRetiresTheirBatch) {
  if (port::backend() != port::Backend::sim) GTEST_SKIP() << "on a GPU this misuse is a race";
  auto rng = rng_for_current_test();
  std::uniform_int_distribution<int> code(0x3c00, 0x3cff);  // fp16 around 1: A·B is far from 0
  const int n = 16;
  std::vector<std::uint16_t> a(64 * 64), b(static_cast<std::size_t>(n) * 64);
  for (auto& x : a) x = static_cast<std::uint16_t>(code(rng));
  for (auto& x : b) x = static_cast<std::uint16_t>(code(rng));
  std::vector<float> c(static_cast<std::size_t>(64) * n);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i % 97) - 48.5f;
  port::DeviceBuffer da = port::DeviceBuffer::from_host<std::uint16_t>(a), db = port::DeviceBuffer::from_host<std::uint16_t>(b);
  port::DeviceBuffer dc = port::DeviceBuffer::from_host<float>(c), dd(c.size() * 4);
  dd.memset(0xff);
  port::Stream s;
  wgmmak::wgmma_tile(static_cast<const std::uint16_t*>(da.data()), static_cast<const std::uint16_t*>(db.data()),
                     static_cast<const float*>(dc.data()), static_cast<float*>(dd.data()), n, true, true, s, true);
  s.synchronize();
  EXPECT_EQ(dd.to_host<float>(), c);
}

}  // namespace
}  // namespace dsv4::test
