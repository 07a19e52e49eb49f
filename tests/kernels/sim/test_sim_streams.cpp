// Simulator scheduling: determinism by seed, stream ordering (in order on one stream, interleaving across streams,
// ordering by events and host syncs), graph capture and replay, asynchronous copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "tests/kernels/sim/sim_fixture.hpp"
#include "tests/kernels/sim/sim_test_kernels.hpp"

namespace dsv4::test {
namespace {
namespace sim = dsv4::port::sim;
using dsv4::port::DeviceBuffer;
using dsv4::port::Event;
using dsv4::port::Stream;

class SimStreams : public SimTest {};

// Ticket order of 4 blocks x 64 threads under a random schedule.
std::vector<int> ticket_run(std::uint64_t seed) {
  sim::Options o;
  o.schedule = sim::Schedule::random;
  o.seed = seed;
  sim::set_options(o);
  DeviceBuffer counter(sizeof(int)), order(sizeof(int) * 256);
  counter.memset(0);
  simk::ticket_order(counter.as<int>(), order.as<int>(), 1, 4, 64);
  return order.to_host<int>();
}

TEST_F(SimStreams, SameSeedSameRunDifferentSeedDifferentInterleaving) {
  const auto a = ticket_run(42), b = ticket_run(42);
  EXPECT_EQ(a, b);
  // Every thread took exactly one ticket.
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 256; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], 100000 + i);
  // The random schedule really interleaves: not the serial order, and another seed gives another order.
  std::vector<int> serial(256);
  std::iota(serial.begin(), serial.end(), 100000);
  EXPECT_NE(a, serial);
  EXPECT_NE(a, ticket_run(43));
}

TEST_F(SimStreams, RandomScheduleKeepsBarrierSemanticsWithoutFalseReports) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    sim::Options o;
    o.schedule = sim::Schedule::random;
    o.seed = seed;
    o.preempt_global = true;
    use(o);
    DeviceBuffer out(sizeof(int) * 3 * 96);
    simk::rotate_through_lds(out.as<int>(), 3, 96);
    const auto v = out.to_host<int>();
    for (int b = 0; b < 3; ++b)
      for (int t = 0; t < 96; ++t)
        ASSERT_EQ(v[static_cast<std::size_t>(b * 96 + t)], (t + 1) % 96 + 1000 * b) << "seed " << seed;
    const sim::Report r = sim::take_report();
    EXPECT_TRUE(r.empty()) << "seed " << seed << "\n" << r.to_string();
  }
}

TEST_F(SimStreams, SerialScheduleRunsBlocksInOrder) {
  DeviceBuffer counter(sizeof(int)), order(sizeof(int) * 256);
  counter.memset(0);
  simk::ticket_order(counter.as<int>(), order.as<int>(), 1, 4, 64);
  const auto v = order.to_host<int>();
  for (int i = 0; i < 256; ++i) ASSERT_EQ(v[static_cast<std::size_t>(i)], 100000 + i);
}

// Two ticket launches (tags 1 and 2, 2 blocks of 64 each) under random schedules; returns true when some tag-2
// ticket precedes some tag-1 ticket.
bool launches_interleave(bool same_stream, bool with_event, std::uint64_t seed) {
  sim::Options o;
  o.schedule = sim::Schedule::random;
  o.seed = seed;
  sim::set_options(o);
  DeviceBuffer counter(sizeof(int)), order(sizeof(int) * 256);
  counter.memset(0);
  Stream s1, s2;
  Event e;
  simk::ticket_order(counter.as<int>(), order.as<int>(), 1, 2, 64, &s1);
  if (with_event) {
    e.record(s1);
    s2.wait(e);
  }
  simk::ticket_order(counter.as<int>(), order.as<int>() + 0, 2, 2, 64, same_stream ? &s1 : &s2);
  dsv4::port::device_synchronize();
  const auto v = order.to_host<int>();
  EXPECT_EQ(counter.to_host<int>()[0], 256);
  int last_tag1 = -1, first_tag2 = 256;
  for (int i = 0; i < 256; ++i) {
    if (v[static_cast<std::size_t>(i)] / 100000 == 1) last_tag1 = i;
    if (v[static_cast<std::size_t>(i)] / 100000 == 2) first_tag2 = std::min(first_tag2, i);
  }
  return first_tag2 < last_tag1;
}

TEST_F(SimStreams, OneStreamRunsInOrderOtherStreamsInterleaveEventsOrder) {
  int interleaved_across = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    EXPECT_FALSE(launches_interleave(true, false, seed)) << "same stream, seed " << seed;
    EXPECT_FALSE(launches_interleave(false, true, seed)) << "event-ordered streams, seed " << seed;
    interleaved_across += launches_interleave(false, false, seed);
  }
  EXPECT_GT(interleaved_across, 0) << "launches on independent streams never interleaved in 5 seeds";
}

TEST_F(SimStreams, LaunchIsAsynchronousUntilASync) {
  std::vector<float> host(300, 1.5f);
  DeviceBuffer y = DeviceBuffer::from_host<float>(host);
  Stream s;
  simk::add_scalar(y.as<float>(), 300, 2.0f, &s);
  EXPECT_EQ(y.as<float>()[7], 1.5f);  // not run yet: sim work runs at synchronisation
  s.synchronize();
  EXPECT_EQ(y.as<float>()[7], 3.5f);
}

TEST_F(SimStreams, AsyncCopiesAreOrderedOnTheirStream) {
  std::vector<float> in(256), out(256, 0.0f);
  for (int i = 0; i < 256; ++i) in[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i);
  DeviceBuffer y(sizeof(float) * 256);
  Stream s;
  y.copy_from_host_async(in.data(), sizeof(float) * 256, s);
  simk::add_scalar(y.as<float>(), 256, 1.0f, &s);
  y.copy_to_host_async(out.data(), sizeof(float) * 256, s);
  s.synchronize();
  for (int i = 0; i < 256; ++i) ASSERT_EQ(out[static_cast<std::size_t>(i)], 0.5f * static_cast<float>(i) + 1.0f);
}

TEST_F(SimStreams, GraphCaptureRecordsAndReplays) {
  std::vector<float> host(200, 0.25f);
  DeviceBuffer y = DeviceBuffer::from_host<float>(host);
  Stream s, other;
  s.begin_capture();
  EXPECT_TRUE(s.capturing());
  simk::add_scalar(y.as<float>(), 200, 1.0f, &s);
  simk::add_scalar(y.as<float>(), 200, 2.0f, &s);
  dsv4::port::Graph g = s.end_capture();
  EXPECT_EQ(y.to_host<float>()[5], 0.25f);  // captured, not run
  dsv4::port::GraphExec ge = g.instantiate();
  ge.launch(s);
  ge.launch(other);  // replay on another stream, ordered after the first by a host sync
  s.synchronize();
  other.synchronize();
  EXPECT_EQ(y.to_host<float>()[5], 6.25f);
  const auto log = dsv4::port::launch_log();
  ASSERT_GE(log.size(), 6u);
  EXPECT_EQ(log.back().kernel_name, "add_scalar");
  ASSERT_EQ(log.back().ranges.size(), 1u);
  EXPECT_EQ(log.back().ranges[0].access, dsv4::port::Access::read_write);
}

TEST_F(SimStreams, EventQueryAndSynchronize) {
  DeviceBuffer y(sizeof(float) * 128);
  y.memset(0);
  Stream s;
  Event e;
  EXPECT_TRUE(e.query());  // never recorded
  simk::add_scalar(y.as<float>(), 128, 4.0f, &s);
  e.record(s);
  EXPECT_FALSE(e.query());
  e.synchronize();
  EXPECT_TRUE(e.query());
  EXPECT_EQ(y.as<float>()[127], 4.0f);
}

}  // namespace
}  // namespace dsv4::test
