// kernels/nvidia/port/cluster.hpp on whatever backend this build has (cuda: an sm_90 device; sim: the cluster executor with
// the sm_90 profile): a ring exchange through distributed LDS in clusters of 1..8 workgroups, every output compared
// with the host's expectation (distinct values, so a wrong rank, offset or block cannot pass); launches breaking the
// cluster rules are refused naming the rule; on sim, kernels breaking the barrier protocol fail their launch.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/nvidia/port/cluster_test_kernel.hpp"
#include "tests/kernels/nvidia/port/sm90_feature_test.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;
using clusterk::Misuse;

class PortCluster : public Sm90SimScheduled {
 protected:
  static int threads() { return port::backend() == port::Backend::sim ? 64 : 128; }
};

// Runs the exchange and returns the number of wrong outputs (the first few are reported).
int run_exchange(int grid, int cluster, int threads, std::mt19937_64& rng) {
  const std::size_t n = static_cast<std::size_t>(grid) * threads;
  std::vector<float> in(n);
  std::uniform_int_distribution<int> v(1, 999);
  for (auto& x : in) x = static_cast<float>(v(rng));  // small integers: every sum below is exact in fp32
  port::DeviceBuffer din = port::DeviceBuffer::from_host<float>(in), dout(n * sizeof(float));
  dout.memset(0xff);  // NaN poison: an unwritten output cannot pass
  port::Stream s;
  clusterk::exchange(static_cast<const float*>(din.data()), static_cast<float*>(dout.data()), grid, threads, cluster, s);
  s.synchronize();
  const auto out = dout.to_host<float>();
  int bad = 0;
  for (int b = 0; b < grid; ++b)
    for (int t = 0; t < threads; ++t) {
      const int rank = b % cluster, peer = (rank + 1) % cluster;
      const int peer_block = b - rank + peer;
      const float want = in[static_cast<std::size_t>(peer_block) * threads + (t + rank) % threads] *
                             static_cast<float>(peer + 1) +
                         1000.f * static_cast<float>(rank) + 1e6f * static_cast<float>(cluster);
      const float got = out[static_cast<std::size_t>(b) * threads + t];
      if (got != want) {
        if (bad < 3)
          ADD_FAILURE() << "cluster " << cluster << " block " << b << " thread " << t << ": got " << got << " want "
                        << want;
        ++bad;
      }
    }
  return bad;
}

TEST_F(PortCluster, RingExchangeThroughDistributedLdsMatchesTheHost) {
  auto rng = rng_for_current_test();
  for (int cluster : {1, 2, 4, 8}) EXPECT_EQ(run_exchange(3 * cluster, cluster, threads(), rng), 0) << cluster;
}

TEST_F(PortCluster, RingExchangeUnderRandomSchedules) {
  if (port::backend() != port::Backend::sim) GTEST_SKIP() << "schedules are a sim option";
  auto rng = rng_for_current_test();
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    use_sim(rng() | 1);
    EXPECT_EQ(run_exchange(8, 4, 32, rng), 0) << "schedule " << seed;
  }
}

void expect_launch_refused(int grid, int cluster, const std::string& rule) {
  port::DeviceBuffer in(static_cast<std::size_t>(grid) * 64 * 4), out(in.bytes());
  in.memset(0);
  port::Stream s;
  try {
    clusterk::exchange(static_cast<const float*>(in.data()), static_cast<float*>(out.data()), grid, 64, cluster, s);
    s.synchronize();
    ADD_FAILURE() << "a launch of grid " << grid << " in clusters of " << cluster << " was not refused";
  } catch (const port::Error& e) {
    EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cluster_exchange_test"), std::string::npos) << e.what();
  }
}

TEST_F(PortCluster, LaunchesBreakingTheClusterRulesAreRefused) {
  expect_launch_refused(4, 3, "not a multiple of the cluster size 3");
  expect_launch_refused(16, 16, "exceeds the sm_90 limit of 8");
  if (port::backend() != port::Backend::sim) return;
  port::sim::Options o;
  o.arch = port::Arch::gfx950;  // CDNA: no clusters
  port::sim::set_options(o);
  expect_launch_refused(4, 2, "no thread-block clusters");
}

// Each misuse fails the launch with the rule it breaks (sim only: on a GPU they are silent races or faults).
TEST_F(PortCluster, ProtocolMisusesFailTheLaunchOnSim) {
  if (port::backend() != port::Backend::sim) GTEST_SKIP() << "on a GPU these are races, not errors";
  const struct {
    Misuse misuse;
    const char* rule;
  } cases[] = {{Misuse::no_sync_before_read, "before it was written"},
               {Misuse::no_sync_before_exit, "exited workgroup of the cluster"},
               {Misuse::rank_out_of_range, "outside the cluster of 4"}};
  std::vector<float> host(8 * 64, 1.f);
  for (const auto& c : cases) {
    port::DeviceBuffer in = port::DeviceBuffer::from_host<float>(host), out(host.size() * 4);
    port::Stream s;
    try {
      clusterk::exchange(static_cast<const float*>(in.data()), static_cast<float*>(out.data()), 8, 64, 4, s, c.misuse);
      s.synchronize();
      ADD_FAILURE() << "misuse " << static_cast<int>(c.misuse) << " was not reported";
    } catch (const port::Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.rule), std::string::npos) << e.what();
    }
  }
  port::sim::take_report();  // the violations are expected here
}

}  // namespace
}  // namespace dsv4::test
