// kernels/nvidia/port/mma.hpp on whatever backend this build has (cuda: the mma.sync instruction on the device; sim: the
// scalar emulation, on waves of 32 and of 64 lanes): D = A·B + C for independent 16x16 · 16x8 problems per 32-lane
// group, checked against a float64 reference. Values on a coarse grid make every sum exact in fp32, so the layout
// check is bitwise; random normal values are checked to fp32 accumulation accuracy.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "reference/tensor/tensor.hpp"
#include "tests/kernels/nvidia/port/mma_test_kernel.hpp"
#include "tests/kernels/nvidia/port/mma_test_values.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;

struct Problem {
  std::vector<std::uint16_t> a, b;  // codes
  std::vector<double> ad, bd;       // decoded
  std::vector<float> c;
};

Problem make_problem(int groups, bool f16, bool grid, std::mt19937_64& rng) {
  Problem p;
  std::uniform_int_distribution<int> small(-255, 255), cdist(-100000, 100000);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> a(groups * 256), b(groups * 128);
  for (auto& x : a) x = grid ? small(rng) / 64.0 : nd(rng);
  for (auto& x : b) x = grid ? small(rng) / 64.0 : nd(rng);
  p.a = encode(f16, a, p.ad);
  p.b = encode(f16, b, p.bd);
  p.c.resize(groups * 128);
  for (auto& x : p.c) x = grid ? static_cast<float>(cdist(rng) / 4096.0) : static_cast<float>(nd(rng));
  return p;
}

// Returns the number of elements off by more than tol_rel * (sum |a·b| + |c|) (0 = exact).
int run_and_count(const Problem& p, int threads, bool f16, double tol_rel) {
  const int groups = threads / 32;
  port::DeviceBuffer a = port::DeviceBuffer::from_host<std::uint16_t>(p.a);
  port::DeviceBuffer b = port::DeviceBuffer::from_host<std::uint16_t>(p.b);
  port::DeviceBuffer c = port::DeviceBuffer::from_host<float>(p.c);
  port::DeviceBuffer d(static_cast<std::size_t>(groups) * 128 * 4);
  d.memset(0xff);  // poison: NaN
  port::Stream s;
  mmak::mma_groups(static_cast<const std::uint16_t*>(a.data()), static_cast<const std::uint16_t*>(b.data()),
                   static_cast<const float*>(c.data()), static_cast<float*>(d.data()), threads, f16, s);
  s.synchronize();
  const std::vector<float> got = d.to_host<float>();
  int bad = 0;
  for (int q = 0; q < groups; ++q)
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        double ref = p.c[q * 128 + m * 8 + n], scale = std::fabs(ref);
        for (int k = 0; k < 16; ++k) {
          const double prod = p.ad[q * 256 + m * 16 + k] * p.bd[q * 128 + k * 8 + n];
          ref += prod;
          scale += std::fabs(prod);
        }
        const double g = got[q * 128 + m * 8 + n];
        if (!(std::fabs(g - ref) <= tol_rel * scale)) {
          if (bad < 3)
            ADD_FAILURE() << "group " << q << " D[" << m << "][" << n << "] = " << g << " expected " << ref;
          ++bad;
        }
      }
  return bad;
}

std::vector<int> thread_counts() {
  if (port::backend() == port::Backend::sim) return {32, 64};
  return {32, 128};
}

void with_wave(int threads, const std::function<void()>& body) {
  if (port::backend() != port::Backend::sim) return body();
  for (int wave : {32, 64}) {  // each wave size the emulation serves
    if (threads % wave) continue;
    auto o = port::sim::options();
    o.wave_size = wave;
    port::sim::set_options(o);
    body();
    port::sim::reset_options();
  }
}

class PortMma : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason();
  }
};

TEST_F(PortMma, GridValuesAreExactForBothTypes) {
  auto rng = rng_for_current_test();
  for (bool f16 : {false, true})
    for (int threads : thread_counts())
      with_wave(threads, [&] {
        const Problem p = make_problem(threads / 32, f16, true, rng);
        EXPECT_EQ(run_and_count(p, threads, f16, 0.0), 0) << (f16 ? "fp16" : "bf16") << " threads " << threads;
      });
}

TEST_F(PortMma, RandomValuesToFp32Accuracy) {
  auto rng = rng_for_current_test();
  for (bool f16 : {false, true})
    for (int threads : thread_counts())
      with_wave(threads, [&] {
        const Problem p = make_problem(threads / 32, f16, false, rng);
        EXPECT_EQ(run_and_count(p, threads, f16, std::ldexp(1.0, -21)), 0)
            << (f16 ? "fp16" : "bf16") << " threads " << threads;
      });
}

}  // namespace
}  // namespace dsv4::test
