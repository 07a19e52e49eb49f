// Test fixture for the simulator's own tests: restores default sim options and an empty report around each test,
// and small helpers to read device buffers.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"

namespace dsv4::test {

class SimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dsv4::port::sim::reset_options();
    (void)dsv4::port::sim::take_report();
  }
  void TearDown() override {
    try {
      dsv4::port::device_synchronize();
    } catch (...) {
    }
    (void)dsv4::port::sim::take_report();
    dsv4::port::sim::reset_options();
  }
  static void use(dsv4::port::sim::Options o) { dsv4::port::sim::set_options(o); }
};

}  // namespace dsv4::test
