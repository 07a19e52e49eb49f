// Tests of kernels/runner_support.hpp's SimRunScope: on sim, a runner's profile and seeded schedule hold for the
// scope's lifetime and the options before it come back when it ends, also when the run throws.
#include <gtest/gtest.h>

#include <stdexcept>

#include "kernels/port/arch.hpp"
#include "kernels/port/sim.hpp"
#include "kernels/runner_support.hpp"

namespace kernels = dsv4::kernels;
namespace port = dsv4::port;
namespace sim = dsv4::port::sim;

TEST(SimRunScope, SetsTheRunsProfileAndScheduleAndRestoresTheOptions) {
  if (!sim::sim_active()) GTEST_SKIP() << "the scope changes the sim's options only";
  sim::Options before = sim::options();
  before.arch = port::Arch::gfx942;
  before.schedule = sim::Schedule::serial;
  before.seed = 3;
  sim::set_options(before);
  kernels::RunOptions run;
  run.seed = 77;
  {
    const kernels::SimRunScope scope(port::kSm90, run);
    EXPECT_EQ(sim::options().arch, port::Arch::sm_90);
    EXPECT_EQ(sim::options().schedule, sim::Schedule::random);
    EXPECT_EQ(sim::options().seed, 77u);
  }
  EXPECT_EQ(sim::options().arch, port::Arch::gfx942);
  EXPECT_EQ(sim::options().schedule, sim::Schedule::serial);
  EXPECT_EQ(sim::options().seed, 3u);
  run.seed = 0;  // no seed: the schedule stays as it was
  EXPECT_THROW(
      {
        const kernels::SimRunScope scope(port::kGfx950, run);
        EXPECT_EQ(sim::options().arch, port::Arch::gfx950);
        EXPECT_EQ(sim::options().schedule, sim::Schedule::serial);
        throw std::runtime_error("the run failed");
      },
      std::runtime_error);
  EXPECT_EQ(sim::options().arch, port::Arch::gfx942);
  sim::reset_options();
}
