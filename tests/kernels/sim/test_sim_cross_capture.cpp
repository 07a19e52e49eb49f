// Cross-stream capture on the simulator (CUDA semantics): a stream that waits on an event recorded inside a
// capture joins it, its work becomes a branch of the same graph, the branch must be joined back before
// end_capture, and a replay runs every branch with the capture's edges as its only cross-branch order. Also the
// stream-order race checker over such graphs: two branches writing one buffer with no edge between them race;
// the same graph with the edge is silent.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/race/runtime_observer.hpp"
#include "tests/kernels/sim/sim_fixture.hpp"
#include "tests/kernels/sim/sim_test_kernels.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace sim = dsv4::port::sim;
using dsv4::port::DeviceBuffer;
using dsv4::port::Event;
using dsv4::port::GraphExec;
using dsv4::port::Stream;

class SimCrossCapture : public SimTest {
 protected:
  void random_schedule(std::uint64_t seed) {
    sim::Options o;
    o.schedule = sim::Schedule::random;
    o.seed = seed;
    use(o);
  }
};

constexpr int kN = 300;
const std::size_t kBytes = sizeof(float) * kN;

// Fork on s, branch on a adds 1 to y1, s adds 2 to y2, join, then s snapshots y1 (must see the branch's add)
// and adds 10 to y1.
GraphExec fork_join_graph(Stream& s, Stream& a, DeviceBuffer& y1, DeviceBuffer& y2, DeviceBuffer& snap, Event& fork,
                          Event& join) {
  s.begin_capture();
  fork.record(s);
  a.wait(fork);
  EXPECT_TRUE(a.capturing()) << "waiting on an event recorded in the capture joins it";
  simk::add_scalar(y1.as<float>(), kN, 1.0f, &a);
  simk::add_scalar(y2.as<float>(), kN, 2.0f, &s);
  join.record(a);
  s.wait(join);
  dsv4::port::copy_device_async(snap, 0, y1, 0, kBytes, s);
  simk::add_scalar(y1.as<float>(), kN, 10.0f, &s);
  GraphExec ge = s.end_capture().instantiate();
  EXPECT_FALSE(a.capturing()) << "end_capture ends the capture on the joined stream too";
  return ge;
}

TEST_F(SimCrossCapture, ForkJoinGraphReplaysBranchesInEdgeOrder) {
  const std::uint64_t base = test_seed("cross_capture_fork_join");
  for (std::uint64_t k = 0; k < 6; ++k) {
    random_schedule(base + k);
    std::vector<float> init(kN);
    for (int i = 0; i < kN; ++i) init[static_cast<std::size_t>(i)] = 0.5f + 0.25f * static_cast<float>(i % 7);
    DeviceBuffer y1 = DeviceBuffer::from_host<float>(init), y2 = DeviceBuffer::from_host<float>(init), snap(kBytes);
    Stream s, a, replay;
    Event fork, join;
    GraphExec ge = fork_join_graph(s, a, y1, y2, snap, fork, join);
    EXPECT_EQ(y1.as<float>()[3], init[3]) << "captured work must not run";
    std::vector<float> snaps;
    for (int r = 0; r < 3; ++r) {
      ge.launch(replay);
      replay.synchronize();  // only the replay stream: the join makes it wait for the branch
      snaps.push_back(snap.to_host<float>()[static_cast<std::size_t>(kN - 1)]);
    }
    const auto h1 = y1.to_host<float>(), h2 = y2.to_host<float>();
    for (int i = 0; i < kN; i += 37) {
      const auto u = static_cast<std::size_t>(i);
      ASSERT_EQ(h1[u], init[u] + 33.0f) << "y1[" << i << "] seed " << base + k;
      ASSERT_EQ(h2[u], init[u] + 6.0f) << "y2[" << i << "] seed " << base + k;
    }
    const float last = init[static_cast<std::size_t>(kN - 1)];
    for (int r = 0; r < 3; ++r)
      EXPECT_EQ(snaps[static_cast<std::size_t>(r)], last + 11.0f * static_cast<float>(r) + 1.0f)
          << "replay " << r << " snapshot taken before the branch's add (seed " << base + k << ")";
  }
}

TEST_F(SimCrossCapture, UnjoinedBranchIsRefusedAtEndCapture) {
  DeviceBuffer y(kBytes);
  y.memset(0);
  Stream s, a;
  Event fork;
  s.begin_capture();
  fork.record(s);
  a.wait(fork);
  simk::add_scalar(y.as<float>(), kN, 1.0f, &a);
  try {
    (void)s.end_capture();
    FAIL() << "end_capture accepted a branch that was never joined back";
  } catch (const dsv4::port::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not joined back"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(s.capturing());
  EXPECT_FALSE(a.capturing());
}

TEST_F(SimCrossCapture, EndCaptureOnAJoinedStreamIsRefused) {
  Stream s, a;
  Event fork, join;
  s.begin_capture();
  fork.record(s);
  a.wait(fork);
  EXPECT_THROW((void)a.end_capture(), dsv4::port::Error);
  join.record(a);
  s.wait(join);
  EXPECT_NO_THROW((void)s.end_capture());
}

// Two branches of one graph both add into y; `edge`: the second branch waits for the first.
std::string races_of_graph(bool edge) {
  DeviceBuffer y(kBytes);
  y.memset(0);
  Stream s, a, b, replay;
  Event fork, ja, jb;
  race::RuntimeRaceObserver obs;
  s.begin_capture();
  fork.record(s);
  a.wait(fork);
  b.wait(fork);
  simk::add_scalar(y.as<float>(), kN, 1.0f, &a);
  ja.record(a);
  if (edge) b.wait(ja);
  simk::add_scalar(y.as<float>(), kN, 2.0f, &b);
  jb.record(b);
  s.wait(ja);
  s.wait(jb);
  GraphExec ge = s.end_capture().instantiate();
  ge.launch(replay);
  replay.synchronize();
  EXPECT_EQ(y.to_host<float>()[5], 3.0f);
  return obs.races().empty() ? std::string() : obs.summary();
}

TEST_F(SimCrossCapture, RaceCheckerFlagsUnorderedBranchesOfOneGraph) {
  const std::string r = races_of_graph(false);
  EXPECT_NE(r.find("add_scalar (graph replay)"), std::string::npos) << "expected a race between the branches: " << r;
}

TEST_F(SimCrossCapture, RaceCheckerIsSilentWhenTheGraphOrdersTheBranches) {
  EXPECT_EQ(races_of_graph(true), "");
}

}  // namespace
}  // namespace dsv4::test
