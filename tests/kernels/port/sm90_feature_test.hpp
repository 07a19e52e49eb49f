// Base fixture of the port tests of sm_90-only features (wgmma, TMA): they run on the sim backend and on an sm_90
// device, and are skipped with the reason anywhere else (no device, another arch).
#pragma once

#include <gtest/gtest.h>

#include "kernels/port/runtime.hpp"

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

}  // namespace dsv4::test
