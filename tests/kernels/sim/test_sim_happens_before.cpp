// kernels/backend/sim/happens_before.hpp on its own: clocks and vector clocks through release/acquire, reader sets
// (interned, updated per reader, checked against a writer's vector clock), and what a block barrier clears.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/backend/sim/happens_before.hpp"

namespace dsv4::test {
namespace {
using dsv4::port::sim::detail::HappensBefore;

TEST(SimHappensBefore, ReleaseThenAcquireOrdersEarlierAccessesOnly) {
  HappensBefore hb;
  hb.reset(4);
  const std::uint32_t c1 = hb.clock(1);  // thread 1's access before its release
  std::vector<std::uint32_t> bar;
  hb.release(1, bar);
  const std::uint32_t c1_after = hb.clock(1);  // an access after the release
  EXPECT_GT(c1_after, c1);
  EXPECT_FALSE(hb.ordered(2, 1, c1)) << "nothing acquired yet";
  hb.acquire(2, bar);
  EXPECT_TRUE(hb.ordered(2, 1, c1));
  EXPECT_FALSE(hb.ordered(2, 1, c1_after)) << "an access after the release is not covered";
  EXPECT_FALSE(hb.ordered(3, 1, c1)) << "thread 3 did not acquire";
  EXPECT_TRUE(hb.ordered(2, 2, 1000)) << "a thread is ordered with itself";
  EXPECT_FALSE(hb.ordered(2, 0xFFFE, 0)) << "ids beyond the block (atomics, other blocks) are never ordered";
}

TEST(SimHappensBefore, OrderIsTransitiveThroughAChainOfBarriers) {
  HappensBefore hb;
  hb.reset(3);
  const std::uint32_t c0 = hb.clock(0);
  std::vector<std::uint32_t> b01, b12;
  hb.release(0, b01);
  hb.acquire(1, b01);
  hb.release(1, b12);
  hb.acquire(2, b12);
  EXPECT_TRUE(hb.ordered(2, 0, c0)) << "0 -> 1 -> 2";
}

TEST(SimHappensBefore, ReaderSetsAreInternedAndCheckedPerReader) {
  HappensBefore hb;
  hb.reset(5);
  hb.precise = true;
  const std::uint32_t r1 = hb.clock(1), r2 = hb.clock(2);
  const std::uint32_t s12 = hb.pair_set(1, r1, 2, r2);
  EXPECT_EQ(hb.pair_set(1, r1, 2, r2), s12) << "the same readers at the same clocks: the same set";
  const std::uint32_t s123 = hb.add_reader(s12, 3, hb.clock(3));
  EXPECT_NE(s123, s12);
  EXPECT_EQ(hb.add_reader(s12, 3, hb.clock(3)), s123);
  // Writer 0 acquires the releases of readers 1 and 2 only: reader 3 is unordered.
  std::vector<std::uint32_t> bar12;
  hb.release(1, bar12);
  hb.release(2, bar12);
  hb.acquire(0, bar12);
  EXPECT_EQ(hb.unordered_reader(s12, 0), -1);
  EXPECT_EQ(hb.unordered_reader(s123, 0), 3);
  std::vector<std::uint32_t> b3;
  hb.release(3, b3);
  hb.acquire(0, b3);  // the writer's vector clock grew: the check is redone, not taken from the memo
  EXPECT_EQ(hb.unordered_reader(s123, 0), -1);
  hb.acquire(4, b3);  // writer 4 saw reader 3 only: the earlier readers of the set still count
  EXPECT_EQ(hb.unordered_reader(s123, 4), 1);
}

TEST(SimHappensBefore, ClocksSurviveABlockBarrierAndSetsDoNot) {
  HappensBefore hb;
  hb.reset(2);
  hb.precise = true;
  std::vector<std::uint32_t> bar;
  hb.release(0, bar);
  const std::uint32_t before = hb.clock(0);
  const std::uint32_t s = hb.pair_set(0, before, 1, hb.clock(1));
  hb.new_epoch();
  EXPECT_EQ(hb.clock(0), before) << "clocks only grow: stamps of the new epoch stay distinct";
  EXPECT_EQ(hb.pair_set(0, before, 1, hb.clock(1)), s) << "ids restart after the barrier (old ones are dead)";
}

}  // namespace
}  // namespace dsv4::test
