// Simulator wave operations at wave 64 and 32 (exact shuffles, ballots, warpSize from the profile or the option),
// and divergence / deadlock detection for barriers and wave ops.
#include <gtest/gtest.h>

#include <string>

#include "tests/kernels/sim/sim_fixture.hpp"
#include "tests/kernels/sim/sim_test_kernels.hpp"

namespace dsv4::test {
namespace {
namespace sim = dsv4::port::sim;
using dsv4::port::DeviceBuffer;
using dsv4::port::Dim3;
using sim::ViolationKind;

struct WaveCase {
  dsv4::port::Arch arch;
  int wave_option;
  int expected_wave;
};

class SimWaves : public SimTest, public ::testing::WithParamInterface<WaveCase> {};

TEST_P(SimWaves, ShufflesAndBallotsAreExact) {
  const WaveCase c = GetParam();
  sim::Options o;
  o.arch = c.arch;
  o.wave_size = c.wave_option;
  use(o);
  const int threads = 128, w = c.expected_wave;
  DeviceBuffer out(sizeof(int) * 6 * threads), ws(sizeof(int));
  simk::wave_ops(out.as<int>(), ws.as<int>(), threads);
  const auto v = out.to_host<int>();
  EXPECT_EQ(ws.to_host<int>()[0], w);
  // Hand-derived: v(lane) = 3 lane + 1; sum over a wave = 3 w(w-1)/2 + w.
  const int wave_sum = 3 * w * (w - 1) / 2 + w;
  unsigned long long ballot = 0;
  for (int l = 0; l < w; l += 3) ballot |= 1ull << l;
  for (int t = 0; t < threads; ++t) {
    const int lane = t % w;
    const int* r = &v[static_cast<std::size_t>(6 * t)];
    ASSERT_EQ(r[0], wave_sum) << "thread " << t;
    ASSERT_EQ(r[1], lane + 1 < w ? 3 * (lane + 1) + 1 : 3 * lane + 1) << "shfl_down, thread " << t;
    ASSERT_EQ(r[2], lane >= 2 ? 3 * (lane - 2) + 1 : 3 * lane + 1) << "shfl_up, thread " << t;
    ASSERT_EQ(r[3], 16) << "shfl from lane 5, thread " << t;
    ASSERT_EQ(static_cast<unsigned>(r[4]), static_cast<unsigned>(ballot & 0xffffffffu)) << "ballot lo, thread " << t;
    ASSERT_EQ(static_cast<unsigned>(r[5]), static_cast<unsigned>(ballot >> 32)) << "ballot hi, thread " << t;
  }
  EXPECT_TRUE(sim::report().empty()) << sim::report().to_string();
}

INSTANTIATE_TEST_SUITE_P(Waves, SimWaves,
                         ::testing::Values(WaveCase{dsv4::port::Arch::gfx950, 0, 64},
                                           WaveCase{dsv4::port::Arch::gfx942, 0, 64},
                                           WaveCase{dsv4::port::Arch::sm_90, 0, 32},
                                           WaveCase{dsv4::port::Arch::gfx950, 32, 32}),
                         [](const auto& info) {
                           return std::string(dsv4::port::profile(info.param.arch).name) + "_wave" +
                                  std::to_string(info.param.expected_wave);
                         });

class SimDivergence : public SimTest {};

TEST_F(SimDivergence, BarrierAfterEarlyExitIsADeadlockNotAHang) {
  DeviceBuffer out(sizeof(int) * 128);
  out.memset(0);
  simk::barrier_after_early_exit(out.as<int>(), 128, 100);
  try {
    dsv4::port::device_synchronize();
    FAIL() << "a barrier that cannot complete must fail the launch";
  } catch (const dsv4::port::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("early_exit"), std::string::npos) << m;
    EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  }
  const sim::Report r = sim::take_report();
  ASSERT_EQ(r.count(ViolationKind::deadlock), 1u) << r.to_string();
  const std::string d = r.of_kind(ViolationKind::deadlock)[0].detail;
  EXPECT_NE(d.find("threads 0-99: waiting at __syncthreads"), std::string::npos) << d;
  EXPECT_NE(d.find("threads 100-127: exited"), std::string::npos) << d;
  // The process lives on: the next launch works.
  simk::barrier_after_early_exit(out.as<int>(), 64, 64);
  EXPECT_EQ(out.to_host<int>()[63], 1);
}

TEST_F(SimDivergence, PartialWaveShuffleIsReported) {
  DeviceBuffer out(sizeof(int) * 64);
  simk::partial_wave_shuffle(out.as<int>(), 64);
  EXPECT_THROW(dsv4::port::device_synchronize(), dsv4::port::Error);
  const sim::Report r = sim::take_report();
  EXPECT_EQ(r.count(ViolationKind::wave_divergence), 1u) << r.to_string();
  EXPECT_EQ(r.count(ViolationKind::deadlock), 1u) << r.to_string();
  EXPECT_NE(r.of_kind(ViolationKind::wave_divergence)[0].detail.find("16 of 64 lanes"), std::string::npos)
      << r.to_string();
}

TEST_F(SimDivergence, WaveCollectiveSeesEveryLaneOfItsWave) {
  const int threads = 128, w = 64;
  DeviceBuffer out(sizeof(int) * threads);
  simk::wave_collective(out.as<int>(), threads, -1);
  const auto v = out.to_host<int>();
  for (int t = 0; t < threads; ++t) {
    const int wave_base = t / w * w, src = wave_base + (w - 1 - t % w);
    ASSERT_EQ(v[static_cast<std::size_t>(t)], 5 * src + 2 + 1000 * w) << "thread " << t;
  }
  EXPECT_TRUE(sim::report().empty()) << sim::report().to_string();
}

TEST_F(SimDivergence, WaveCollectiveAtTwoSitesIsReported) {
  DeviceBuffer out(sizeof(int) * 64);
  simk::wave_collective(out.as<int>(), 64, 9);
  const auto v = out.to_host<int>();
  const sim::Report r = sim::take_report();
  EXPECT_EQ(r.count(ViolationKind::wave_divergence), 1u) << r.to_string();
  // A diverged wave runs no collective (a lane's operands may belong to another op): every lane keeps its -1.
  for (int t = 0; t < 64; ++t) EXPECT_EQ(v[static_cast<std::size_t>(t)], -1) << "thread " << t;
}

TEST_F(SimDivergence, BarrierAtTwoSitesIsReported) {
  DeviceBuffer out(sizeof(int) * 64);
  simk::barrier_two_sites(out.as<int>(), 64);
  const auto v = out.to_host<int>();
  EXPECT_EQ(v[7], 7);
  const sim::Report r = sim::take_report();
  EXPECT_EQ(r.count(ViolationKind::barrier_divergence), 1u) << r.to_string();
}

TEST_F(SimDivergence, FailOnViolationMakesTheLaunchFail) {
  sim::Options o;
  o.fail_on_violation = true;
  use(o);
  DeviceBuffer out(sizeof(int) * 64);
  simk::barrier_two_sites(out.as<int>(), 64);
  EXPECT_THROW(dsv4::port::device_synchronize(), dsv4::port::Error);
}

TEST_F(SimDivergence, KernelExceptionFailsOnlyThatLaunch) {
  DeviceBuffer out(sizeof(int) * 4 * 64);
  out.memset(0);
  simk::throwing_kernel(out.as<int>(), 4, 64, 2, 17);
  try {
    dsv4::port::device_synchronize();
    FAIL() << "the kernel exception must fail the launch";
  } catch (const dsv4::port::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("block (2,0,0)"), std::string::npos) << m;
    EXPECT_NE(m.find("thread (17,0,0)"), std::string::npos) << m;
    EXPECT_NE(m.find("planted kernel fault"), std::string::npos) << m;
  }
  const sim::Report r = sim::take_report();
  ASSERT_EQ(r.count(ViolationKind::kernel_exception), 1u) << r.to_string();
  EXPECT_EQ(r.violations[0].block, Dim3(2, 0, 0));
  EXPECT_EQ(r.violations[0].thread, Dim3(17, 0, 0));
  simk::throwing_kernel(out.as<int>(), 4, 64, 99, 0);  // no thread throws
  const auto v = out.to_host<int>();
  for (int i = 0; i < 4 * 64; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)], 1);
}

// The launch in flight fails at the next synchronisation with an error containing `what`, reported as exactly one
// kernel exception.
void expect_launch_fails_with(const std::string& what) {
  try {
    dsv4::port::device_synchronize();
    ADD_FAILURE() << "the launch must fail with: " << what;
  } catch (const dsv4::port::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(what), std::string::npos) << m;
  }
  const sim::Report r = sim::take_report();
  EXPECT_EQ(r.count(ViolationKind::kernel_exception), 1u) << r.to_string();
}

TEST_F(SimDivergence, MisalignedVectorGlobalStoreFailsTheLaunch) {
  DeviceBuffer out(16 * 32 + 16);
  out.memset(0);
  simk::vector_store(out.data(), 32, 16);  // aligned: performed
  dsv4::port::device_synchronize();
  const auto ok = out.to_host<std::uint32_t>();
  EXPECT_EQ(ok[4 + 4 * 5 + 3], 5u);  // thread 5's last word
  simk::vector_store(out.data(), 32, 8);  // 8-byte aligned 16-byte stores fault on a GPU
  expect_launch_fails_with("misaligned global store of 16 B");
}

// A launch that may overlap the previous kernel (programmatic dependent launch) must wait for it before touching
// global memory: a store before port::wait_for_previous_grid() fails the launch, naming the rule.
TEST_F(SimDivergence, GlobalAccessBeforeGridDependencyWaitFailsTheLaunch) {
  DeviceBuffer out(sizeof(int) * 32);
  out.memset(0);
  simk::store_after_grid_wait(out.as<int>(), 32, false);
  dsv4::port::device_synchronize();
  const auto v = out.to_host<int>();
  for (int t = 0; t < 32; ++t) ASSERT_EQ(v[static_cast<std::size_t>(t)], t + 1);
  simk::store_after_grid_wait(out.as<int>(), 32, true);
  expect_launch_fails_with("before port::wait_for_previous_grid()");
}

}  // namespace
}  // namespace dsv4::test
