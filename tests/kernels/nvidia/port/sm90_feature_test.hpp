// Base fixtures of the port tests of sm_90-only features (wgmma, TMA, clusters, barriers): they run on the sim backend
// and on an sm_90 device, and are skipped with the reason anywhere else (no device, another arch). Sm90SimScheduled
// also runs the sim with the sm_90 profile and lets a test pick a schedule.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"

namespace dsv4::test {

class Sm90FeatureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace port = dsv4::port;
    if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason();
    if (port::backend() != port::Backend::sim && port::device_profile().arch != port::Arch::sm_90)
      GTEST_SKIP() << "an sm_90 feature: runs on sm_90 devices and on sim only";
  }
};

class Sm90SimScheduled : public Sm90FeatureTest {
 protected:
  void SetUp() override {
    Sm90FeatureTest::SetUp();
    if (!IsSkipped() && on_sim()) use_sim(0);
  }
  void TearDown() override {
    if (on_sim()) dsv4::port::sim::reset_options();
  }
  static bool on_sim() { return dsv4::port::backend() == dsv4::port::Backend::sim; }
  // The sim with `arch`'s profile and a schedule: serial unless seed != 0 (random with that seed, also preempting at
  // global accesses); the report starts empty.
  static void use_sim(std::uint64_t seed, dsv4::port::Arch arch = dsv4::port::Arch::sm_90) {
    dsv4::port::sim::Options o;
    o.arch = arch;
    if (seed != 0) {
      o.schedule = dsv4::port::sim::Schedule::random;
      o.seed = seed;
      o.preempt_global = true;
    }
    dsv4::port::sim::set_options(o);
    (void)dsv4::port::sim::take_report();
  }
};

}  // namespace dsv4::test
