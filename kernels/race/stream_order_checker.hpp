// Stream-order race checker: host-side, backend-independent. Every launch declares the byte ranges it
// reads and writes (workspaces included); streams, events, graph replays and host syncs give a
// happens-before order tracked with one vector clock per stream (as PyTorch's CUDA sanitizer does per
// tensor, here per byte range). Two accesses to overlapping bytes, at least one a write, whose
// launches are not ordered, are a race: reported with both launches, their streams and the range.
//
// The verdict depends only on the declared order, never on timing: a static workspace shared by two
// streams is flagged on every run, and per-stream workspace slots are silent.
//
// Invariant: a launch's epoch is (stream, counter); launch X happens-before launch Y (on stream t)
// iff clock_of(t at Y)[X.stream] >= X.counter.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dsv4::race {

using StreamId = std::uint64_t;
using EventId = std::uint64_t;

enum class Access : std::uint8_t { read, write };

struct Range {
  std::uintptr_t begin = 0, end = 0;  // [begin, end) in bytes
  Access access = Access::read;
  std::string what;  // argument name, e.g. "out" or "workspace"
};

struct LaunchRecord {
  std::string kernel;
  StreamId stream = 0;
  std::uint64_t counter = 0;  // position on its stream's clock
  std::uint64_t sequence = 0; // global issue order (for reports)
  std::vector<Range> ranges;
};

struct RaceReport {
  LaunchRecord first, second;
  std::uintptr_t begin = 0, end = 0;  // the overlapping bytes
  std::string kind;                   // "write-write", "read-write" (first read, second write), "write-read"
  std::string first_what, second_what;
  std::string str() const;            // one line naming both launches, streams and the range
};

using VectorClock = std::map<StreamId, std::uint64_t>;

class StreamOrderChecker {
 public:
  // A kernel launch (or a memcpy/memset expressed as one) issued on `stream`.
  void launch(StreamId stream, const std::string& kernel, std::vector<Range> ranges);
  // Event record on a stream / a stream waiting on an event.
  void record_event(EventId e, StreamId stream);
  void wait_event(StreamId stream, EventId e);
  // Host syncs: the host waits for a stream, an event, or the whole device. Later launches on any
  // stream are ordered after what the host waited for.
  void sync_stream(StreamId stream);
  void sync_event(EventId e);
  void sync_device();
  // A graph replay: the captured launches (in capture order, with their ranges) run on `stream`.
  // Nodes are serialised on the replay stream (conservative for branches inside one graph).
  void replay_graph(StreamId stream, const std::vector<LaunchRecord>& captured);
  // Memory released: forget the history of [begin, end).
  void release(std::uintptr_t begin, std::uintptr_t end);

  const std::vector<RaceReport>& races() const { return races_; }
  std::size_t launches() const { return sequence_; }
  std::size_t live_history() const { return history_.size(); }
  void clear();

 private:
  VectorClock& clock(StreamId s);
  bool ordered_before(const LaunchRecord& x, StreamId t) const;  // x happens-before the current point of t
  void check_and_record(const LaunchRecord& rec);
  void prune();

  std::map<StreamId, VectorClock> clocks_;
  std::map<EventId, VectorClock> events_;
  VectorClock host_;  // what the host has waited for; merged into every stream at its next launch
  std::vector<LaunchRecord> history_;
  std::vector<RaceReport> races_;
  std::uint64_t sequence_ = 0;
};

}  // namespace dsv4::race
