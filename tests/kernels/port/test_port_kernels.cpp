// The portability layer on whatever backend this build has (label `gpu` on cuda/hip, `cpu;sim` on sim): buffers,
// copies, streams, events, graph capture/replay, launches with static and dynamic LDS, wave ops, atomics, and the
// checked errors of bad launches. Expected values are hand-derived from the inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "tests/kernels/port/port_test_kernels.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;

class Port : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!port::device_available()) GTEST_SKIP() << "no device for the " << port::backend_name()
                                                << " backend: " << port::device_unavailable_reason();
  }
};

TEST_F(Port, ProfileMatchesTheBackend) {
  const port::ArchProfile& p = port::device_profile();
  if (port::backend() == port::Backend::cuda) {
    EXPECT_EQ(p.arch, port::Arch::sm_90);
    EXPECT_EQ(p.wave_size, 32);
    EXPECT_GE(p.lds_bytes_per_block, 227u * 1024u);
  } else if (port::backend() == port::Backend::sim) {
    EXPECT_EQ(p.arch, port::Arch::gfx950);  // sim default
    EXPECT_EQ(p.lds_bytes_per_block, 160u * 1024u);
  }
  EXPECT_TRUE(p.wave_size == 32 || p.wave_size == 64);
}

TEST_F(Port, AxpyOnAStreamWithAsyncCopies) {
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[std::size_t(i)] = 0.5f * float(i);
    y[std::size_t(i)] = float(3 - i);
  }
  port::DeviceBuffer dx(sizeof(float) * n), dy(sizeof(float) * n);
  port::Stream s;
  dx.copy_from_host_async(x.data(), sizeof(float) * n, s);
  dy.copy_from_host_async(y.data(), sizeof(float) * n, s);
  portk::axpy(2.0f, dx.as<float>(), dy.as<float>(), n, s);
  dy.copy_to_host_async(out.data(), sizeof(float) * n, s);
  s.synchronize();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[std::size_t(i)], 3.0f) << i;  // 2 * i/2 + 3 - i
}

TEST_F(Port, BlockSumWithShufflesLdsAndAtomics) {
  const int blocks = 5, threads = 256;
  std::vector<float> x(std::size_t(blocks) * threads);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7) - 2.0f;  // small integers: sums are exact
  port::DeviceBuffer dx = port::DeviceBuffer::from_host<float>(x), out(sizeof(float) * blocks), total(sizeof(float));
  total.memset(0);
  port::Stream s;
  portk::block_sum(dx.as<float>(), out.as<float>(), total.as<float>(), blocks, threads, s);
  s.synchronize();
  const auto got = out.to_host<float>();
  double all = 0;
  for (int b = 0; b < blocks; ++b) {
    double ref = 0;
    for (int t = 0; t < threads; ++t) ref += x[std::size_t(b) * threads + t];
    EXPECT_EQ(got[std::size_t(b)], float(ref)) << "block " << b;
    all += ref;
  }
  EXPECT_EQ(total.to_host<float>()[0], float(all));
}

TEST_F(Port, DynamicLdsReverse) {
  const int n = 320;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[std::size_t(i)] = float(i * i % 101);
  port::DeviceBuffer dx = port::DeviceBuffer::from_host<float>(x), dy(sizeof(float) * n);
  port::Stream s;
  portk::reverse_in_lds(dx.as<float>(), dy.as<float>(), n, s);
  const auto y = dy.to_host<float>();
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[std::size_t(i)], x[std::size_t(n - 1 - i)]) << i;
}

TEST_F(Port, WaveSizeAndBallot) {
  port::DeviceBuffer lanes(sizeof(int)), count(sizeof(int));
  port::Stream s;
  portk::wave_facts(lanes.as<int>(), count.as<int>(), s);
  const int w = lanes.to_host<int>()[0];
  EXPECT_EQ(w, port::device_profile().wave_size);
  EXPECT_EQ(count.to_host<int>()[0], w / 2);
}

TEST_F(Port, EventsOrderTwoStreams) {
  const int n = 4096;
  std::vector<float> ones(n, 1.0f);
  port::DeviceBuffer dx = port::DeviceBuffer::from_host<float>(ones), dy = port::DeviceBuffer::from_host<float>(ones);
  port::Stream a, b;
  port::Event e;
  portk::axpy(3.0f, dx.as<float>(), dy.as<float>(), n, a);  // y = 4
  e.record(a);
  b.wait(e);
  portk::axpy(-1.0f, dy.as<float>(), dx.as<float>(), n, b);  // x = 1 - 4 = -3
  b.synchronize();
  EXPECT_TRUE(e.query());
  const auto x = dx.to_host<float>();
  for (int i = 0; i < n; ++i) ASSERT_EQ(x[std::size_t(i)], -3.0f) << i;
}

TEST_F(Port, GraphCaptureAndReplay) {
  const int n = 512;
  std::vector<float> zeros(n, 0.0f), ones(n, 1.0f);
  port::DeviceBuffer dx = port::DeviceBuffer::from_host<float>(ones), dy = port::DeviceBuffer::from_host<float>(zeros);
  port::Stream s;
  s.begin_capture();
  portk::axpy(0.5f, dx.as<float>(), dy.as<float>(), n, s);
  port::Graph g = s.end_capture();
  EXPECT_EQ(dy.to_host<float>()[3], 0.0f);  // captured, not run
  port::GraphExec ge = g.instantiate();
  for (int r = 0; r < 4; ++r) ge.launch(s);
  s.synchronize();
  const auto y = dy.to_host<float>();
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[std::size_t(i)], 2.0f) << i;
}

TEST_F(Port, BadLaunchIsACheckedErrorNamingTheKernel) {
  port::DeviceBuffer dx(sizeof(float) * 2048), dy(sizeof(float) * 2048);
  port::Stream s;
  try {
    portk::reverse_in_lds(dx.as<float>(), dy.as<float>(), 2048, s);  // 2048 threads per block: over every limit
    s.synchronize();
    FAIL() << "a launch of 2048 threads per block must fail";
  } catch (const port::Error& e) {
    EXPECT_NE(std::string(e.what()).find("reverse_in_lds"), std::string::npos) << e.what();
  }
  // The runtime stays usable after the failed launch.
  portk::reverse_in_lds(dx.as<float>(), dy.as<float>(), 64, s);
  EXPECT_NO_THROW(s.synchronize());
}

}  // namespace
}  // namespace dsv4::test
