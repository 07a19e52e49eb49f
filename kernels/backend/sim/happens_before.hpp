// sim backend: happens-before between the threads of one block beyond its block barriers, for the LDS race check
// (lds.cpp). Each thread has a clock (1 + its count of release operations) and a vector clock: for every other
// thread, the latest clock of it this thread has acquired. A transaction barrier (mbarrier.cpp) collects the
// releases of its arrivals and landed copies and hands them to the threads whose wait it completes. An LDS access
// is stamped (epoch, thread, clock); a later access of the same epoch by another thread is ordered after it iff that
// thread has acquired the stamp's clock. Invariant: clocks only grow, so nothing is reset at a block barrier (the
// epoch orders everything before one; the clocks order what comes after).
// Reads of one byte by several threads not ordered among themselves form a reader set, interned (the same readers at
// the same clocks make the same set, so the bytes of a tile share sets) and dropped at every block barrier. Sets are
// kept while the block is `precise`: it has initialised a barrier that expects several arrivals (a release from
// several readers to one writer: a producer/consumer ring). Otherwise several readers collapse into kNoSet, which
// conflicts with any later write of the epoch: extra reports, never a missed race.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace dsv4::port::sim::detail {

inline constexpr std::uint32_t kNoSet = 0xFFFFFFFFu;  // "several readers", not tracked one by one

class HappensBefore {
 public:
  void reset(int nthreads);  // a block starts
  void new_epoch();          // a block barrier: reader sets of earlier epochs are never consulted again
  bool precise = false;

  std::uint32_t clock(int t) const { return clock_[static_cast<std::size_t>(t)]; }
  // Whether thread u's access at clock c happens before thread t's next access (u, t: linear threads of the block;
  // any other id, e.g. another block's or an atomic writer's, is not ordered).
  bool ordered(int t, std::uint32_t u, std::uint32_t c) const;
  // Release by t into a barrier's clocks (what t has seen, and t's own clock); t's clock then advances.
  void release(int t, std::vector<std::uint32_t>& into);
  // Acquire by t of a completed barrier phase's clocks.
  void acquire(int t, const std::vector<std::uint32_t>& from);

  // Reader sets (ids index sets_). The set of readers u at cu and t at ct; `set` with t's read at ct added.
  std::uint32_t pair_set(std::uint32_t u, std::uint32_t cu, std::uint32_t t, std::uint32_t ct);
  std::uint32_t add_reader(std::uint32_t set, std::uint32_t t, std::uint32_t ct);
  // The first reader of `set` whose read does not happen before t's next access, or -1 when all do.
  int unordered_reader(std::uint32_t set, int t);

 private:
  struct Reader {
    std::uint32_t tid, clock;
  };
  struct Key {
    std::uint32_t set, tid, clock;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return (std::size_t{k.set} * 0x9E3779B97F4A7C15ull) ^ (std::size_t{k.tid} << 32) ^ k.clock;
    }
  };
  std::uint32_t intern(std::vector<Reader> readers);

  int n_ = 0;
  std::vector<std::uint32_t> clock_;
  std::vector<std::vector<std::uint32_t>> seen_;  // vector clocks; empty: nothing acquired yet
  std::vector<std::uint32_t> version_;            // bumped whenever a thread's vector clock grows
  std::vector<std::vector<Reader>> sets_;         // sorted by tid
  std::unordered_map<Key, std::uint32_t, KeyHash> added_;    // (set, reader, clock) -> set
  std::unordered_map<Key, int, KeyHash> checked_;           // (set, thread, version) -> unordered reader or -1
};

}  // namespace dsv4::port::sim::detail
