// Tests of the stream-order race checker: shared static workspace flagged deterministically, per-stream
// slots silent, events/host syncs/graph replays order launches as HIP does.
#include <gtest/gtest.h>

#include "kernels/race/stream_order_checker.hpp"

using namespace dsv4::race;

namespace {
// A skinny-GEMM-like launch: reads a and b, writes out, and reads+writes a workspace slab.
std::vector<Range> gemm_ranges(std::uintptr_t a, std::uintptr_t out, std::uintptr_t ws) {
  return {{a, a + 4096, Access::read, "a"},
          {out, out + 1024, Access::write, "out"},
          {ws, ws + 8192, Access::write, "workspace"},
          {ws, ws + 8192, Access::read, "workspace"}};
}
constexpr std::uintptr_t kA1 = 0x10000, kA2 = 0x20000, kOut1 = 0x30000, kOut2 = 0x40000;
constexpr std::uintptr_t kStaticWs = 0x100000, kSlot0 = 0x200000, kSlot1 = 0x300000;
}  // namespace

TEST(StreamOrderChecker, StaticWorkspaceSharedByTwoStreamsIsARace) {
  StreamOrderChecker c;
  c.launch(1, "skinny_gemm", gemm_ranges(kA1, kOut1, kStaticWs));
  c.launch(2, "skinny_gemm", gemm_ranges(kA2, kOut2, kStaticWs));
  ASSERT_FALSE(c.races().empty());
  const RaceReport& r = c.races().front();
  EXPECT_EQ(r.first.stream, 1u);
  EXPECT_EQ(r.second.stream, 2u);
  EXPECT_EQ(r.begin, kStaticWs);
  EXPECT_EQ(r.end, kStaticWs + 8192);
  EXPECT_EQ(r.first_what, "workspace");
  EXPECT_NE(r.str().find("stream 2"), std::string::npos) << r.str();
  // Outputs and inputs are distinct, so every report is about the workspace.
  for (auto& x : c.races()) EXPECT_EQ(x.first_what, "workspace") << x.str();
}

TEST(StreamOrderChecker, PerStreamSlotsAreSilent) {
  StreamOrderChecker c;
  for (int i = 0; i < 100; ++i) {
    c.launch(1, "skinny_gemm", gemm_ranges(kA1, kOut1, kSlot0));
    c.launch(2, "skinny_gemm", gemm_ranges(kA2, kOut2, kSlot1));
  }
  EXPECT_TRUE(c.races().empty()) << c.races().front().str();
}

TEST(StreamOrderChecker, EventOrdersTheSecondStream) {
  StreamOrderChecker c;
  c.launch(1, "producer", {{kOut1, kOut1 + 64, Access::write, "x"}});
  c.record_event(7, 1);
  c.wait_event(2, 7);
  c.launch(2, "consumer", {{kOut1, kOut1 + 64, Access::read, "x"}});
  EXPECT_TRUE(c.races().empty());
  // Without the wait, a later producer on stream 1 races with the consumer's read.
  c.launch(1, "producer2", {{kOut1, kOut1 + 64, Access::write, "x"}});
  ASSERT_EQ(c.races().size(), 1u);
  EXPECT_EQ(c.races()[0].kind, "read-write");
}

TEST(StreamOrderChecker, EventRecordedBeforeTheLaunchDoesNotOrderIt) {
  StreamOrderChecker c;
  c.record_event(1, 1);
  c.launch(1, "producer", {{kOut1, kOut1 + 64, Access::write, "x"}});
  c.wait_event(2, 1);
  c.launch(2, "consumer", {{kOut1, kOut1 + 64, Access::read, "x"}});
  EXPECT_EQ(c.races().size(), 1u);
}

TEST(StreamOrderChecker, HostSyncOrdersLaterLaunchesOnEveryStream) {
  StreamOrderChecker c;
  c.launch(1, "w", {{kOut1, kOut1 + 64, Access::write, "x"}});
  c.sync_stream(1);
  c.launch(3, "r", {{kOut1, kOut1 + 64, Access::read, "x"}});
  EXPECT_TRUE(c.races().empty());
  EXPECT_EQ(c.live_history(), 1u);  // the synced launch was pruned
}

TEST(StreamOrderChecker, GraphCapturedOnAReplayedOnBRacesWithLiveLaunchesOnA) {
  StreamOrderChecker c;
  std::vector<LaunchRecord> graph(1);
  graph[0].kernel = "skinny_gemm";
  graph[0].ranges = gemm_ranges(kA1, kOut1, kStaticWs);
  c.launch(1, "skinny_gemm", gemm_ranges(kA2, kOut2, kStaticWs));  // live launch on A
  c.replay_graph(2, graph);                                         // replay on B while A runs
  ASSERT_FALSE(c.races().empty());
  EXPECT_NE(c.races()[0].second.kernel.find("graph replay"), std::string::npos);
  // Keyed by replay stream (own slot), it is silent.
  StreamOrderChecker ok;
  graph[0].ranges = gemm_ranges(kA1, kOut1, kSlot1);
  ok.launch(1, "skinny_gemm", gemm_ranges(kA2, kOut2, kSlot0));
  ok.replay_graph(2, graph);
  EXPECT_TRUE(ok.races().empty());
}

TEST(StreamOrderChecker, ForkJoinWithEventsIsSilentAndMissingJoinIsNot) {
  // CSA fork/join (vLLM #51794): default stream 0 forks aux streams 1 and 2 from one input and joins.
  auto run = [](bool join) {
    StreamOrderChecker c;
    c.launch(0, "input", {{0x1000, 0x2000, Access::write, "hidden"}});
    c.record_event(100, 0);
    for (StreamId s : {1, 2}) {
      c.wait_event(s, 100);
      c.launch(s, "compressor", {{0x1000, 0x2000, Access::read, "hidden"}, {0x10000 * s, 0x10000 * s + 512, Access::write, "cache"}});
      c.record_event(200 + s, s);
    }
    c.launch(0, "main_chain", {{0x1000, 0x2000, Access::read, "hidden"}, {0x5000, 0x6000, Access::write, "q"}});
    if (join) for (StreamId s : {1, 2}) c.wait_event(0, 200 + s);
    c.launch(0, "attention", {{0x10000, 0x10200, Access::read, "cache"}, {0x20000, 0x20200, Access::read, "cache"}});
    return c.races().size();
  };
  EXPECT_EQ(run(true), 0u);
  EXPECT_EQ(run(false), 2u);
}
