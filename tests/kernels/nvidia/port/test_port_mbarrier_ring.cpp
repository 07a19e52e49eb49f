// A producer/consumer ring ordered by transaction barriers alone (kernels/nvidia/port/tma.hpp: full/empty barriers per
// slot, no block barrier in the loop) on whatever backend this build has (cuda: an sm_90 device; sim: the sm_90
// profile): every consumer's per-step sum compared with the host's. On sim the LDS race check must see the ring as
// ordered (no report, serial and random schedules) and must report each planted protocol break as a hazard.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/nvidia/port/ring_test_kernel.hpp"
#include "tests/kernels/nvidia/port/sm90_feature_test.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;
namespace sim = dsv4::port::sim;
using ringk::Misuse;

using PortMbarrierRing = Sm90SimScheduled;

// Runs the ring; returns the number of wrong sums (the first few are reported).
int run_ring(int steps, int slots, int consumers, std::mt19937_64& rng, Misuse misuse = Misuse::none) {
  std::vector<std::uint32_t> in(static_cast<std::size_t>(steps) * ringk::kRingWords);
  for (auto& x : in) x = static_cast<std::uint32_t>(rng()) | 1u;  // never zero
  port::DeviceBuffer din = port::DeviceBuffer::from_host<std::uint32_t>(in);
  port::DeviceBuffer dout(static_cast<std::size_t>(steps) * consumers * 4);
  dout.memset(0xff);  // poison: an unwritten sum cannot pass
  port::Stream s;
  ringk::run_ring(static_cast<const std::uint32_t*>(din.data()), static_cast<std::uint32_t*>(dout.data()), steps,
                  slots, consumers, s, misuse);
  s.synchronize();
  const auto out = dout.to_host<std::uint32_t>();
  int bad = 0;
  for (int i = 0; i < steps; ++i)
    for (int c = 0; c < consumers; ++c) {
      std::uint32_t want = 0;
      for (int j = 0; j < ringk::kRingReads; ++j)
        want += in[static_cast<std::size_t>(i) * ringk::kRingWords + (c + 32 * j) % ringk::kRingWords];
      const std::uint32_t got = out[static_cast<std::size_t>(i) * consumers + c];
      if (got != want && misuse == Misuse::none) {
        if (bad < 3)
          ADD_FAILURE() << "slots " << slots << " consumers " << consumers << " step " << i << " consumer " << c
                        << ": got " << got << " want " << want;
        ++bad;
      }
    }
  return bad;
}

TEST_F(PortMbarrierRing, SumsMatchTheHostAndTheSimSeesNoRace) {
  auto rng = rng_for_current_test();
  for (int slots : {1, 2, 3})
    for (int consumers : {32, 96, 128}) {
      EXPECT_EQ(run_ring(4 * slots + 1, slots, consumers, rng), 0) << slots << " slots, " << consumers << " consumers";
      if (on_sim()) {
        const sim::Report r = sim::take_report();
        EXPECT_TRUE(r.empty()) << slots << " slots, " << consumers << " consumers:\n" << r.to_string();
      }
    }
}

TEST_F(PortMbarrierRing, UnderRandomSchedules) {
  if (!on_sim()) GTEST_SKIP() << "schedules are a sim option";
  auto rng = rng_for_current_test();
  for (int run = 0; run < 4; ++run) {
    const std::uint64_t seed = rng() | 1;
    use_sim(seed);
    EXPECT_EQ(run_ring(7, 2 + run % 2, 64, rng), 0) << "schedule seed " << seed;
    const sim::Report r = sim::take_report();
    EXPECT_TRUE(r.empty()) << "schedule seed " << seed << ":\n" << r.to_string();
  }
}

// Each break of the protocol is an LDS hazard on the ring's slots (sim only: on a GPU it is a silent race).
TEST_F(PortMbarrierRing, ProtocolBreaksAreReportedAsHazardsOnSim) {
  if (!on_sim()) GTEST_SKIP() << "on a GPU these are races, not errors";
  auto rng = rng_for_current_test();
  for (Misuse m : {Misuse::read_before_full_wait, Misuse::release_before_read}) {
    run_ring(6, 2, 64, rng, m);
    const sim::Report r = sim::take_report();
    const auto hazards = r.of_kind(sim::ViolationKind::lds_hazard);
    ASSERT_FALSE(hazards.empty()) << "misuse " << static_cast<int>(m) << " not reported:\n" << r.to_string();
    EXPECT_EQ(hazards[0].array, "ring_slots") << r.to_string();
  }
}

}  // namespace
}  // namespace dsv4::test
