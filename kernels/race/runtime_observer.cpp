// RuntimeRaceObserver: the port runtime observer that feeds StreamOrderChecker; see runtime_observer.hpp.
#include "kernels/race/runtime_observer.hpp"

namespace dsv4::race {

std::vector<Range> to_ranges(const std::vector<port::BufferRange>& ranges) {
  std::vector<Range> out;
  for (const port::BufferRange& r : ranges) {
    if (!r.base || r.bytes == 0) continue;
    const auto b = reinterpret_cast<std::uintptr_t>(r.base);
    out.push_back(Range{b, b + r.bytes, r.access == port::Access::read ? Access::read : Access::write,
                        r.name ? r.name : ""});
  }
  return out;
}

RuntimeRaceObserver::RuntimeRaceObserver() : previous_(port::runtime_observer()) {
  port::set_runtime_observer(this);
}
RuntimeRaceObserver::~RuntimeRaceObserver() { port::set_runtime_observer(previous_); }

std::vector<RaceReport> RuntimeRaceObserver::races() const {
  std::lock_guard lock(mu_);
  return checker_.races();
}
std::string RuntimeRaceObserver::summary(std::size_t max_lines) const {
  std::lock_guard lock(mu_);
  const auto& rs = checker_.races();
  if (rs.empty()) return "no races";
  std::string s = std::to_string(rs.size()) + " race(s):\n";
  for (std::size_t i = 0; i < rs.size() && i < max_lines; ++i) s += rs[i].str() + "\n";
  if (rs.size() > max_lines) s += "... and " + std::to_string(rs.size() - max_lines) + " more\n";
  return s;
}
std::size_t RuntimeRaceObserver::launches() const {
  std::lock_guard lock(mu_);
  return checker_.launches();
}
StreamId RuntimeRaceObserver::id_of(const port::Stream& s) {
  std::lock_guard lock(mu_);
  return stream_id(s.native());
}

StreamId RuntimeRaceObserver::stream_id(const void* native) {
  auto [it, fresh] = streams_.try_emplace(native, streams_.size() + 1);
  return it->second;
}
EventId RuntimeRaceObserver::event_id(const void* native) {
  auto [it, fresh] = events_.try_emplace(native, events_.size() + 1);
  return it->second;
}

void RuntimeRaceObserver::issue(StreamId s, const std::string& name, std::vector<Range> ranges, bool captured,
                                const void* native) {
  if (captured)
    capturing_[native].push_back(Node{Node::launch, name, std::move(ranges), 0});
  else
    checker_.launch(s, name, std::move(ranges));
}

void RuntimeRaceObserver::on_launch(const port::LaunchRecord& l) {
  std::lock_guard lock(mu_);
  issue(stream_id(l.stream), l.kernel_name, to_ranges(l.ranges), l.captured, l.stream);
}
void RuntimeRaceObserver::on_memory_op(const void* stream, const char* op, const std::vector<port::BufferRange>& r,
                                       bool captured) {
  std::lock_guard lock(mu_);
  issue(stream_id(stream), op, to_ranges(r), captured, stream);
}
void RuntimeRaceObserver::on_event_record(const void* event, const void* stream, bool captured) {
  std::lock_guard lock(mu_);
  if (captured)
    capturing_[stream].push_back(Node{Node::event_record, "", {}, event_id(event)});
  else
    checker_.record_event(event_id(event), stream_id(stream));
}
void RuntimeRaceObserver::on_event_wait(const void* stream, const void* event, bool captured) {
  std::lock_guard lock(mu_);
  if (captured)
    capturing_[stream].push_back(Node{Node::event_wait, "", {}, event_id(event)});
  else
    checker_.wait_event(stream_id(stream), event_id(event));
}
void RuntimeRaceObserver::on_stream_sync(const void* stream) {
  std::lock_guard lock(mu_);
  checker_.sync_stream(stream_id(stream));
}
void RuntimeRaceObserver::on_event_sync(const void* event) {
  std::lock_guard lock(mu_);
  checker_.sync_event(event_id(event));
}
void RuntimeRaceObserver::on_device_sync() {
  std::lock_guard lock(mu_);
  checker_.sync_device();
}
void RuntimeRaceObserver::on_capture_end(const void* stream, const void* graph) {
  std::lock_guard lock(mu_);
  auto it = capturing_.find(stream);
  std::vector<Node> nodes;
  if (it != capturing_.end()) {
    nodes = std::move(it->second);
    capturing_.erase(it);
  }
  graphs_[graph] = std::make_shared<const std::vector<Node>>(std::move(nodes));
}
void RuntimeRaceObserver::on_graph_instantiate(const void* graph, const void* exec) {
  std::lock_guard lock(mu_);
  auto it = graphs_.find(graph);
  execs_[exec] = it != graphs_.end() ? it->second : std::make_shared<const std::vector<Node>>();
}
void RuntimeRaceObserver::on_graph_launch(const void* exec, const void* stream) {
  std::lock_guard lock(mu_);
  auto it = execs_.find(exec);
  if (it == execs_.end()) return;  // instantiated before this observer was attached: unknown contents
  const StreamId s = stream_id(stream);
  for (const Node& n : *it->second) {
    switch (n.kind) {
      case Node::launch: checker_.launch(s, n.name + " (graph replay)", n.ranges); break;
      case Node::event_record: checker_.record_event(n.event, s); break;
      case Node::event_wait: checker_.wait_event(s, n.event); break;
    }
  }
}
void RuntimeRaceObserver::on_free(const void* ptr, std::size_t bytes) {
  std::lock_guard lock(mu_);
  const auto b = reinterpret_cast<std::uintptr_t>(ptr);
  checker_.release(b, b + bytes);
}

}  // namespace dsv4::race
