// kernels/nvidia/port/named_barrier.hpp on whatever backend this build has (cuda: an sm_90 device; sim: the sm_90 profile):
// two groups of warps exchange words through LDS, each ordered by its own named barrier and never by a block
// barrier; every output compared with the host's. On sim the LDS race check must see the exchange as ordered, and
// each misuse must be reported (a hazard, or a failed launch naming the rule).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/nvidia/port/named_barrier_test_kernel.hpp"
#include "tests/kernels/nvidia/port/sm90_feature_test.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;
namespace sim = dsv4::port::sim;
using namedk::Misuse;

using PortNamedBarrier = Sm90SimScheduled;

constexpr int kRounds = 3;

// Runs the exchange; returns the number of wrong outputs (the first few are reported).
int run_exchange(std::mt19937_64& rng, Misuse misuse = Misuse::none) {
  std::vector<int> in(128);
  std::uniform_int_distribution<int> v(1, 1 << 20);
  for (auto& x : in) x = v(rng);
  port::DeviceBuffer din = port::DeviceBuffer::from_host<int>(in), dout(kRounds * 128 * sizeof(int));
  dout.memset(0xff);  // poison
  port::Stream s;
  namedk::exchange(static_cast<const int*>(din.data()), static_cast<int*>(dout.data()), kRounds, s, misuse);
  s.synchronize();
  const auto out = dout.to_host<int>();
  int bad = 0;
  for (int round = 0; round < kRounds; ++round)
    for (int g = 0; g < 2; ++g)
      for (int t = 0; t < 64; ++t) {
        const int want = in[static_cast<std::size_t>(g * 64 + (t + 1) % 64)] + round;
        const int got = out[static_cast<std::size_t>((round * 2 + g) * 64 + t)];
        if (got != want && misuse == Misuse::none) {
          if (bad < 3) ADD_FAILURE() << "round " << round << " group " << g << " thread " << t << ": got " << got << " want " << want;
          ++bad;
        }
      }
  return bad;
}

TEST_F(PortNamedBarrier, GroupsExchangeThroughLdsWithoutARace) {
  auto rng = rng_for_current_test();
  EXPECT_EQ(run_exchange(rng), 0);
  if (!on_sim()) return;
  const sim::Report r = sim::take_report();
  EXPECT_TRUE(r.empty()) << r.to_string();
  for (int run = 0; run < 4; ++run) {
    const std::uint64_t seed = rng() | 1;
    use_sim(seed);
    EXPECT_EQ(run_exchange(rng), 0) << "schedule seed " << seed;
    const sim::Report rr = sim::take_report();
    EXPECT_TRUE(rr.empty()) << "schedule seed " << seed << ":\n" << rr.to_string();
  }
}

TEST_F(PortNamedBarrier, AMissingBarrierIsAHazardOnSim) {
  if (!on_sim()) GTEST_SKIP() << "on a GPU this is a silent race";
  auto rng = rng_for_current_test();
  run_exchange(rng, Misuse::missing_sync);
  const sim::Report r = sim::take_report();
  const auto hazards = r.of_kind(sim::ViolationKind::lds_hazard);
  ASSERT_FALSE(hazards.empty()) << r.to_string();
  EXPECT_EQ(hazards[0].array, "words");
  for (const auto& h : hazards) EXPECT_LT(h.thread.x, 64u) << "group 1 is ordered: " << h.to_string();
}

TEST_F(PortNamedBarrier, MisusesFailTheLaunchNamingTheRuleOnSim) {
  if (!on_sim()) GTEST_SKIP() << "on a GPU these hang or are undefined";
  auto rng = rng_for_current_test();
  auto expect_failure = [&](Misuse m, const std::string& rule) {
    try {
      run_exchange(rng, m);
      ADD_FAILURE() << "misuse " << static_cast<int>(m) << " was not reported";
    } catch (const port::Error& e) {
      EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << e.what();
    }
    (void)sim::take_report();
  };
  expect_failure(Misuse::count_mismatch, "awaited with 96 threads while");
  expect_failure(Misuse::reserved_id, "barrier id 0 outside 1..15");
  use_sim(0, port::Arch::gfx950);
  expect_failure(Misuse::none, "gfx950 has no named barriers");
}

}  // namespace
}  // namespace dsv4::test
