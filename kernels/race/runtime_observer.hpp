// RuntimeRaceObserver: connects the stream-order race checker to the portability layer's runtime. While one is
// alive it is the process-wide dsv4::port runtime observer, and every launch (with its declared byte ranges,
// workspaces included), async copy/memset, event record/wait, stream/event/device sync, graph capture and graph
// replay on any backend is fed to a StreamOrderChecker.
//
// Graphs: a launch (or copy, event record/wait) issued to a capturing stream is kept in its capture, one lane per
// stream: lane 0 for the stream that began it, one more for each stream that joined it (cross-stream capture,
// on_capture_join). An event recorded inside the capture is graph-private: a wait on it inside the capture is an
// edge between lanes. end_capture files the lanes under the graph, instantiate under the executable; each replay
// issues lane 0 on the replay stream and lane i on a stream of the executable's own (as the backends run them),
// with fresh events for the edges (node names get " (graph replay)"). So two branches of one graph that touch
// the same bytes without an edge between them are reported like two unordered streams.
// Streams and events are identified by their native handles; StreamId 1, 2, ... in first-seen order (replay lanes
// and graph-private events get ids of their own from the same counters).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/race/stream_order_checker.hpp"

namespace dsv4::race {

class RuntimeRaceObserver final : public port::RuntimeObserver {
 public:
  RuntimeRaceObserver();   // attaches itself (remembers the observer it replaces)
  ~RuntimeRaceObserver() override;  // detaches, restoring the previous observer
  RuntimeRaceObserver(const RuntimeRaceObserver&) = delete;
  RuntimeRaceObserver& operator=(const RuntimeRaceObserver&) = delete;

  std::vector<RaceReport> races() const;
  // The first max_lines races, one line each, then how many more ("no races" when none).
  std::string summary(std::size_t max_lines = 10) const;
  std::size_t launches() const;
  StreamId id_of(const port::Stream& s);  // the id reports use for this stream

  void on_launch(const port::LaunchRecord& launch) override;
  void on_memory_op(const void* stream, const char* op, const std::vector<port::BufferRange>& ranges,
                    bool captured) override;
  void on_event_record(const void* event, const void* stream, bool captured) override;
  void on_event_wait(const void* stream, const void* event, bool captured) override;
  void on_stream_sync(const void* stream) override;
  void on_event_sync(const void* event) override;
  void on_device_sync() override;
  void on_capture_join(const void* stream, const void* origin) override;
  void on_capture_end(const void* stream, const void* graph) override;
  void on_graph_instantiate(const void* graph, const void* exec) override;
  void on_graph_launch(const void* exec, const void* stream) override;
  void on_free(const void* ptr, std::size_t bytes) override;

 private:
  struct Node {
    enum Kind { launch, event_record, event_wait } kind = launch;
    std::string name;
    std::vector<Range> ranges;
    EventId event = 0;  // event_wait on an event from outside the capture
    int slot = -1;      // event_record: its graph-private event; event_wait: an edge to that record
  };
  struct Capture {
    std::vector<std::vector<Node>> lanes{1};
    int slots = 0;
  };
  using NodeLanes = std::shared_ptr<const std::vector<std::vector<Node>>>;

  StreamId stream_id(const void* native);  // callers hold mu_
  EventId event_id(const void* native);
  // The capture lane a captured call on `native` goes to (the stream that began a capture is its lane 0).
  std::vector<Node>& lane_of(const void* native, Capture** capture = nullptr);
  void issue(StreamId s, const std::string& name, std::vector<Range> ranges, bool captured, const void* native);
  void replay(const std::vector<std::vector<Node>>& lanes, const void* exec, StreamId s);

  mutable std::mutex mu_;
  StreamOrderChecker checker_;
  std::uint64_t next_stream_ = 1, next_event_ = 1;
  std::map<const void*, StreamId> streams_;
  std::map<const void*, EventId> events_;
  std::map<const void*, Capture> capturing_;                                // per stream that began a capture
  std::map<const void*, std::pair<const void*, std::size_t>> lane_;        // capturing stream -> (origin, lane)
  std::map<const void*, std::pair<const void*, int>> captured_record_;     // event -> (origin, slot) while open
  std::map<const void*, NodeLanes> graphs_, execs_;
  std::map<const void*, std::vector<StreamId>> exec_lanes_;               // lane streams 1..n-1 of an executable
  port::RuntimeObserver* previous_ = nullptr;
};

// Converts a launch's declared ranges (read_write counts as a write; empty ranges are dropped).
std::vector<Range> to_ranges(const std::vector<port::BufferRange>& ranges);

}  // namespace dsv4::race
