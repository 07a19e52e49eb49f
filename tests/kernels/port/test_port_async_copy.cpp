// kernels/port/async_copy.hpp on this build's backend (label `gpu` on cuda, `cpu;sim` on sim): staged copies with
// zero-fill cross threads after wait + barrier; async_wait<N> retires the oldest groups. On sim also the checker's
// view of the deferred copies: stale LDS before the wait, a race when another thread reads without the barrier,
// and an out-of-range destination reported at the wait. Expected values come from the inputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/port/async_copy_test_kernel.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;

class PortAsyncCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!port::device_available()) GTEST_SKIP() << "no device for the " << port::backend_name()
                                                << " backend: " << port::device_unavailable_reason();
    if (port::backend() == port::Backend::sim) (void)port::sim::take_report();
  }
  static bool sim() { return port::backend() == port::Backend::sim; }
};

std::vector<std::uint32_t> random_words(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::uint32_t> v(n);
  for (auto& w : v) w = static_cast<std::uint32_t>(rng()) | 1u;  // never zero: zero-fill is visible
  return v;
}

template <class T>
port::DeviceBuffer upload(const std::vector<T>& v) {
  return port::DeviceBuffer::from_host<T>(std::span<const T>(v));
}

TEST_F(PortAsyncCopy, StagedGroupsWithZeroFillCrossThreadsAfterWaitAndBarrier) {
  auto rng = rng_for_current_test();
  const int groups = 3, n = groups * 256;
  const auto src = random_words(static_cast<std::size_t>(n) * 4, rng);
  std::vector<int> valid(n);
  for (int i = 0; i < n; ++i) valid[i] = (rng() % 5) != 0;
  port::DeviceBuffer d_src = upload(src), d_valid = upload(valid);
  port::DeviceBuffer d_dst(static_cast<std::size_t>(n) * 16);
  d_dst.memset(0xEE);
  port::Stream s;
  asyncc::staged_reverse(d_src.as<std::uint32_t>(), d_valid.as<int>(), d_dst.as<std::uint32_t>(), groups, s);
  s.synchronize();
  std::vector<std::uint32_t> got(static_cast<std::size_t>(n) * 4);
  d_dst.copy_to_host(got.data(), got.size() * 4);
  int zero_slots = 0;
  for (int i = 0; i < n; ++i) {
    const int from = n - 1 - i;
    zero_slots += valid[from] ? 0 : 1;
    for (int w = 0; w < 4; ++w)
      ASSERT_EQ(got[i * 4 + w], valid[from] ? src[from * 4 + w] : 0u) << "dst slot " << i << " word " << w;
  }
  EXPECT_GT(zero_slots, 0);
  if (sim()) {
    EXPECT_TRUE(port::sim::take_report().empty());
  }
}

TEST_F(PortAsyncCopy, WaitRetiresTheOldestGroupsFirst) {
  auto rng = rng_for_current_test();
  const auto src = random_words(4 * 256 * 4, rng);
  const std::uint32_t marker = 0xDEADBEEFu;
  port::DeviceBuffer d_src = upload(src);
  port::DeviceBuffer d_seen(256 * 8 * 4);
  port::Stream s;
  asyncc::wait_counts(d_src.as<std::uint32_t>(), d_seen.as<std::uint32_t>(), marker, s);
  s.synchronize();
  std::vector<std::uint32_t> seen(256 * 8);
  d_seen.copy_to_host(seen.data(), seen.size() * 4);
  for (int t = 0; t < 256; ++t) {
    for (int g = 0; g < 2; ++g) ASSERT_EQ(seen[t * 8 + g], src[(g * 256 + t) * 4]) << "thread " << t << " group " << g;
    // Groups 2 and 3 are still in flight after async_wait<2>: the simulator shows the stale marker (a GPU may
    // already have landed them, so the kernel reports the marker itself there).
    for (int g = 2; g < 4; ++g) ASSERT_EQ(seen[t * 8 + g], marker) << "thread " << t << " group " << g;
    for (int g = 0; g < 4; ++g)
      ASSERT_EQ(seen[t * 8 + 4 + g], src[(g * 256 + t) * 4]) << "after async_wait<0>: thread " << t << " group " << g;
  }
}

TEST_F(PortAsyncCopy, SimReportsAReadOfAnotherThreadsCopyWithoutBarrier) {
  if (!sim()) GTEST_SKIP() << "a planted race: only the simulator can report it";
  auto rng = rng_for_current_test();
  const auto src = random_words(256 * 4, rng);
  port::DeviceBuffer d_src = upload(src), d_dst(256 * 4);
  port::Stream s;
  asyncc::read_neighbour_without_barrier(d_src.as<std::uint32_t>(), d_dst.as<std::uint32_t>(), s);
  s.synchronize();
  const port::sim::Report r = port::sim::take_report();
  EXPECT_GT(r.count(port::sim::ViolationKind::lds_hazard) + r.count(port::sim::ViolationKind::lds_uninitialized_read),
            0u)
      << r.to_string();
}

TEST_F(PortAsyncCopy, SimReportsACopyPastTheLdsAllocationAtItsWait) {
  if (!sim()) GTEST_SKIP() << "an out-of-range LDS write is undefined on a GPU";
  auto rng = rng_for_current_test();
  const auto src = random_words(4, rng);
  port::DeviceBuffer d_src = upload(src);
  port::Stream s;
  asyncc::copy_past_lds_end(d_src.as<std::uint32_t>(), s);
  s.synchronize();
  const port::sim::Report r = port::sim::take_report();
  const auto v = r.of_kind(port::sim::ViolationKind::lds_out_of_range);
  ASSERT_EQ(v.size(), 1u) << r.to_string();
  EXPECT_EQ(v[0].offset, 4096) << v[0].to_string();
  EXPECT_EQ(v[0].size, 16u) << v[0].to_string();
}

}  // namespace
}  // namespace dsv4::test
