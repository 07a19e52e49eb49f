// Tests of hipsim's cross-launch race check (hipsim/runtime/stream_order.hpp) on hand-made operations: which pairs
// HIP orders (same stream, events, transitively through events, host waits, the null stream with blocking streams
// but not with non-blocking ones), which accesses conflict (not read-read, not atomic-atomic), the first
// conflicting range out of merged intervals, and that the verdict does not depend on which operation ran first.
// Addresses are outside every allocation, so ranges are reported as absolute addresses. Each test uses streams of
// its own and ends with a host wait that forgets its operations.
#include <gtest/gtest.h>

#include <string>

#include "hipsim/runtime/state.hpp"
#include "hipsim/runtime/stream_order.hpp"

namespace o = hipsim::order;

namespace {
constexpr std::uintptr_t kBase = 0x7000;

// The findings reported since the last call.
std::string findings() {
  testing::internal::CaptureStderr();
  hipsim::flush_findings("test");
  return testing::internal::GetCapturedStderr();
}

// An operation on s that touched [kBase + lo, kBase + hi) as t, run at once.
std::uint64_t op(o::StreamKey s, const char* name, std::uintptr_t lo, std::uintptr_t hi, o::Touch t,
                 bool run = true) {
  const std::uint64_t h = o::issue(s, name, 0);
  o::touch(h, kBase + lo, hi - lo, t, "f.hip:1");
  if (run) o::executed(h);
  return h;
}

struct HipsimStreamOrder : testing::Test {
  void TearDown() override {
    o::host_waits_all();
    findings();
  }
};
}  // namespace

TEST_F(HipsimStreamOrder, TwoBlockingStreamsWritingOverlappingBytesRace) {
  o::add_stream(1, true);
  o::add_stream(2, true);
  op(1, "A", 100, 200, o::Touch::write);
  op(2, "B", 150, 250, o::Touch::write);
  const std::string f = findings();
  EXPECT_NE(f.find("stream_race between A on stream 1 and B on stream 2: bytes [0x7096, 0x70c8): A wrote them at "
                   "f.hip:1, B wrote them at f.hip:1"),
            std::string::npos)
      << f;
}

TEST_F(HipsimStreamOrder, AnEventOrdersThemAndSoDoesAChainOfEvents) {
  int e1 = 0, e2 = 0;
  o::add_stream(3, true);
  o::add_stream(4, true);
  o::add_stream(5, true);
  op(3, "A", 0, 64, o::Touch::write);
  o::record_event(&e1, 3);
  o::wait_event(4, &e1);
  op(4, "B", 0, 64, o::Touch::read);
  o::record_event(&e2, 4);
  o::wait_event(5, &e2);
  op(5, "C", 0, 64, o::Touch::write);  // after A through B's stream
  EXPECT_EQ(findings().find("stream_race"), std::string::npos);
}

TEST_F(HipsimStreamOrder, AWaitOnAnEventRecordedBeforeTheLaunchOrdersNothing) {
  int e = 0;
  o::add_stream(6, true);
  o::add_stream(7, true);
  o::record_event(&e, 6);
  op(6, "A", 0, 64, o::Touch::write);
  o::wait_event(7, &e);
  op(7, "B", 32, 40, o::Touch::read);
  EXPECT_NE(findings().find("stream_race between A on stream 6 and B on stream 7: bytes [0x7020, 0x7028): A wrote "
                            "them at f.hip:1, B read them"),
            std::string::npos);
}

TEST_F(HipsimStreamOrder, HostWaitOnTheStreamOrdersLaterWork) {
  o::add_stream(8, true);
  o::add_stream(9, true);
  op(8, "A", 0, 64, o::Touch::write);
  o::host_waits_stream(8);
  op(9, "B", 0, 64, o::Touch::write);
  EXPECT_EQ(findings().find("stream_race"), std::string::npos);
}

TEST_F(HipsimStreamOrder, NullStreamOrdersBlockingStreamsButNotNonBlockingOnes) {
  o::add_stream(10, true);
  o::add_stream(11, true);
  o::add_stream(12, false);
  op(10, "A", 0, 64, o::Touch::write);
  op(0, "N", 1000, 1004, o::Touch::write);  // waits for A; B waits for it
  op(11, "B", 0, 64, o::Touch::write);
  EXPECT_EQ(findings().find("stream_race"), std::string::npos);
  op(12, "C", 0, 64, o::Touch::write);  // non-blocking: ordered with nothing above
  const std::string f = findings();
  EXPECT_NE(f.find("stream_race between A on stream 10 and C on stream 12"), std::string::npos) << f;
  EXPECT_NE(f.find("stream_race between B on stream 11 and C on stream 12"), std::string::npos) << f;
}

TEST_F(HipsimStreamOrder, ReadsAndAtomicsAmongThemselvesAreNoRaceButAnAtomicAgainstAReadIs) {
  o::add_stream(13, true);
  o::add_stream(14, true);
  op(13, "R1", 0, 64, o::Touch::read);
  op(14, "R2", 0, 64, o::Touch::read);
  op(13, "X1", 100, 104, o::Touch::atomic);
  op(14, "X2", 100, 104, o::Touch::atomic);
  EXPECT_EQ(findings().find("stream_race"), std::string::npos);
  op(14, "R3", 100, 104, o::Touch::read);
  EXPECT_NE(findings().find("stream_race between X1 on stream 13 and R3 on stream 14: bytes [0x7064, 0x7068): X1 "
                            "updated them atomically at f.hip:1, R3 read them at f.hip:1"),
            std::string::npos);
}

TEST_F(HipsimStreamOrder, TouchingAccessesMergeAndTheFirstConflictIsShown) {
  o::add_stream(15, true);
  o::add_stream(16, true);
  const std::uint64_t a = o::issue(15, "A", 0);
  for (std::uintptr_t i = 0; i < 16; ++i) o::touch(a, kBase + 4 * i, 4, o::Touch::write, "f.hip:2");
  o::executed(a);
  const std::uint64_t b = o::issue(16, "B", 0);
  o::touch(b, kBase + 60, 8, o::Touch::read, "f.hip:3");
  o::touch(b, kBase + 20, 2, o::Touch::read, "f.hip:4");
  o::executed(b);
  const std::string f = findings();
  EXPECT_NE(f.find("bytes [0x7014, 0x7016): A wrote them at f.hip:2, B read them at f.hip:4"), std::string::npos) << f;
}

TEST_F(HipsimStreamOrder, TheVerdictDoesNotDependOnWhichRanFirst) {
  o::add_stream(17, true);
  o::add_stream(18, true);
  const std::uint64_t a = op(17, "A", 0, 8, o::Touch::write, /*run=*/false);
  const std::uint64_t b = op(18, "B", 4, 12, o::Touch::write, /*run=*/false);
  o::executed(b);
  EXPECT_EQ(findings().find("stream_race"), std::string::npos);  // A has not run: nothing to compare yet
  o::executed(a);
  EXPECT_NE(findings().find("stream_race between A on stream 17 and B on stream 18: bytes [0x7004, 0x7008)"),
            std::string::npos);
}

TEST_F(HipsimStreamOrder, AnOrderedPairStaysQuietWhenTheLaterOneRunsFirst) {
  int e = 0;
  o::add_stream(19, true);
  o::add_stream(20, true);
  const std::uint64_t a = op(19, "A", 0, 8, o::Touch::write, /*run=*/false);
  o::record_event(&e, 19);
  o::wait_event(20, &e);
  op(20, "B", 0, 8, o::Touch::write);  // issued after A's event, run before A
  o::executed(a);
  EXPECT_EQ(findings().find("stream_race"), std::string::npos);
}
