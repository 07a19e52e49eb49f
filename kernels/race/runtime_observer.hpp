// RuntimeRaceObserver: connects the stream-order race checker to the portability layer's runtime. While one is
// alive it is the process-wide dsv4::port runtime observer, and every launch (with its declared byte ranges,
// workspaces included), async copy/memset, event record/wait, stream/event/device sync, graph capture and graph
// replay on any backend is fed to a StreamOrderChecker.
//
// Graphs: a launch (or copy, event record/wait) issued to a capturing stream is kept in that stream's capture list;
// end_capture files the list under the graph, instantiate under the executable, and each replay issues the list
// in capture order on the replay stream (node names get " (graph replay)"). Capture is modelled per stream, as
// the sim backend does: work that other streams join into a capture (CUDA cross-stream capture) is not tracked.
// Streams and events are identified by their native handles; StreamId 1, 2, ... in first-seen order.
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
  void on_capture_end(const void* stream, const void* graph) override;
  void on_graph_instantiate(const void* graph, const void* exec) override;
  void on_graph_launch(const void* exec, const void* stream) override;
  void on_free(const void* ptr, std::size_t bytes) override;

 private:
  struct Node {
    enum Kind { launch, event_record, event_wait } kind = launch;
    std::string name;
    std::vector<Range> ranges;
    EventId event = 0;
  };
  using NodeList = std::shared_ptr<const std::vector<Node>>;

  StreamId stream_id(const void* native);  // callers hold mu_
  EventId event_id(const void* native);
  void issue(StreamId s, const std::string& name, std::vector<Range> ranges, bool captured, const void* native);

  mutable std::mutex mu_;
  StreamOrderChecker checker_;
  std::map<const void*, StreamId> streams_;
  std::map<const void*, EventId> events_;
  std::map<const void*, std::vector<Node>> capturing_;  // per capturing stream
  std::map<const void*, NodeList> graphs_, execs_;
  port::RuntimeObserver* previous_ = nullptr;
};

// Converts a launch's declared ranges (read_write counts as a write; empty ranges are dropped).
std::vector<Range> to_ranges(const std::vector<port::BufferRange>& ranges);

}  // namespace dsv4::race
