// Simulator work counts and memory: a barrier loop counts every barrier, a GEMM-like kernel (256 threads/block, two
// barriers per K step) matches a float64 reference, peak memory stays under 1 GiB. CPU times are printed for the
// log only; the speed figures are bench/kernels/bench_sim_speed's (timings are no test's business).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tests/kernels/sim/sim_fixture.hpp"
#include "tests/kernels/sim/sim_test_kernels.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace sim = dsv4::port::sim;
using dsv4::port::DeviceBuffer;

class SimPerf : public SimTest {};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

TEST_F(SimPerf, BarrierLoopCountsEveryBarrier) {
  const int iters = 2000;
  DeviceBuffer out(sizeof(int) * 256);
  const sim::Stats before = sim::stats();
  const double t0 = thread_cpu_seconds();
  simk::barrier_loop(out.as<int>(), iters);
  const auto v = out.to_host<int>();
  const double cpu = thread_cpu_seconds() - t0;
  for (int t = 0; t < 256; ++t) ASSERT_EQ(v[static_cast<std::size_t>(t)], iters);
  const sim::Stats after = sim::stats();
  EXPECT_EQ(after.barriers - before.barriers, std::uint64_t(iters));
  const double switches = double(after.fiber_switches - before.fiber_switches);
  std::printf("[sim perf] barrier loop: %d barriers x 256 threads, %.0f fiber switches, %.3f s CPU, %.1f ns per "
              "switch (barrier bookkeeping included)\n",
              iters, switches, cpu, cpu / switches * 1e9);
}

TEST_F(SimPerf, TiledGemmMatchesTheReference) {
  const int M = 96, N = 80, K = 160;
  auto rng = rng_for_current_test();
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> A(std::size_t(M) * K), B(std::size_t(K) * N);
  for (float& x : A) x = dist(rng);
  for (float& x : B) x = dist(rng);
  DeviceBuffer dA = DeviceBuffer::from_host<float>(A), dB = DeviceBuffer::from_host<float>(B),
               dC(sizeof(float) * M * N);
  const sim::Stats before = sim::stats();
  const double t0 = thread_cpu_seconds();
  simk::tiled_gemm(dA.as<float>(), dB.as<float>(), dC.as<float>(), M, N, K);
  const auto C = dC.to_host<float>();
  const double secs = thread_cpu_seconds() - t0;
  const sim::Stats after = sim::stats();
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        ref += double(A[std::size_t(i) * K + k]) * double(B[std::size_t(k) * N + j]);
        mag += std::fabs(double(A[std::size_t(i) * K + k]) * double(B[std::size_t(k) * N + j]));
      }
      ASSERT_NEAR(C[std::size_t(i) * N + j], ref, 1e-5 * mag + 1e-6) << "C[" << i << "][" << j << "]";
    }
  }
  EXPECT_TRUE(sim::report().empty()) << sim::report().to_string();
  const double switches = double(after.fiber_switches - before.fiber_switches);
  const double threads = double(after.threads - before.threads);
  std::printf("[sim perf] tiled_gemm %dx%dx%d: %.3f s CPU, %.0f threads, %.0f barriers, %.0f fiber switches, "
              "%.2f M FMAs/s with two checked LDS reads each\n",
              M, N, K, secs, threads, double(after.barriers - before.barriers), switches,
              double(M) * N * K / secs / 1e6);
}

TEST_F(SimPerf, PeakMemoryStaysUnderOneGiB) {
  // Largest block (1024 threads) with the default 64 KiB stacks, several launches.
  DeviceBuffer y(sizeof(float) * 1024 * 64);
  y.memset(0);
  simk::add_scalar(y.as<float>(), 1024 * 64, 1.0f);
  simk::rotate_through_lds(y.as<int>(), 8, 1024);
  dsv4::port::device_synchronize();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("[sim perf] peak RSS %.1f MiB\n", double(ru.ru_maxrss) / 1024.0);
  EXPECT_LT(ru.ru_maxrss, 1024L * 1024L);  // KiB
}

}  // namespace
}  // namespace dsv4::test
