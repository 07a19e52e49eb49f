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
  auto it = streams_.find(native);
  if (it == streams_.end()) it = streams_.emplace(native, next_stream_++).first;
  return it->second;
}
EventId RuntimeRaceObserver::event_id(const void* native) {
  auto it = events_.find(native);
  if (it == events_.end()) it = events_.emplace(native, next_event_++).first;
  return it->second;
}

std::vector<RuntimeRaceObserver::Node>& RuntimeRaceObserver::lane_of(const void* native, Capture** capture) {
  auto it = lane_.find(native);
  if (it == lane_.end()) it = lane_.emplace(native, std::make_pair(native, std::size_t{0})).first;  // began it
  Capture& c = capturing_[it->second.first];
  if (capture) *capture = &c;
  return c.lanes[it->second.second];
}

void RuntimeRaceObserver::issue(StreamId s, const std::string& name, std::vector<Range> ranges, bool captured,
                                const void* native) {
  if (captured)
    lane_of(native).push_back(Node{Node::launch, name, std::move(ranges), 0, -1});
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
  if (captured) {
    Capture* c = nullptr;
    std::vector<Node>& lane = lane_of(stream, &c);
    const int slot = c->slots++;
    lane.push_back(Node{Node::event_record, "", {}, 0, slot});
    captured_record_[event] = {lane_.at(stream).first, slot};
  } else {
    captured_record_.erase(event);
    checker_.record_event(event_id(event), stream_id(stream));
  }
}
void RuntimeRaceObserver::on_event_wait(const void* stream, const void* event, bool captured) {
  std::lock_guard lock(mu_);
  if (captured) {
    std::vector<Node>& lane = lane_of(stream);
    auto rec = captured_record_.find(event);
    const bool edge = rec != captured_record_.end() && rec->second.first == lane_.at(stream).first;
    lane.push_back(Node{Node::event_wait, "", {}, edge ? 0 : event_id(event), edge ? rec->second.second : -1});
  } else {
    checker_.wait_event(stream_id(stream), event_id(event));
  }
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
void RuntimeRaceObserver::on_capture_join(const void* stream, const void* origin) {
  std::lock_guard lock(mu_);
  lane_of(origin);  // the origin may have issued nothing yet
  Capture& c = capturing_[origin];
  lane_[stream] = {origin, c.lanes.size()};
  c.lanes.emplace_back();
}
void RuntimeRaceObserver::on_capture_end(const void* stream, const void* graph) {
  std::lock_guard lock(mu_);
  auto it = capturing_.find(stream);
  std::vector<std::vector<Node>> lanes(1);
  if (it != capturing_.end()) {
    lanes = std::move(it->second.lanes);
    capturing_.erase(it);
  }
  std::erase_if(lane_, [stream](const auto& kv) { return kv.second.first == stream; });
  std::erase_if(captured_record_, [stream](const auto& kv) { return kv.second.first == stream; });
  graphs_[graph] = std::make_shared<const std::vector<std::vector<Node>>>(std::move(lanes));
}
void RuntimeRaceObserver::on_graph_instantiate(const void* graph, const void* exec) {
  std::lock_guard lock(mu_);
  auto it = graphs_.find(graph);
  execs_[exec] = it != graphs_.end() ? it->second : std::make_shared<const std::vector<std::vector<Node>>>(1);
}
void RuntimeRaceObserver::on_graph_launch(const void* exec, const void* stream) {
  std::lock_guard lock(mu_);
  auto it = execs_.find(exec);
  if (it == execs_.end()) return;  // instantiated before this observer was attached: unknown contents
  replay(*it->second, exec, stream_id(stream));
}

// Issues the lanes to the checker in an order that respects the graph's edges (a wait after its record); the
// vector clocks then decide what is ordered, whatever interleaving of independent lanes is chosen.
void RuntimeRaceObserver::replay(const std::vector<std::vector<Node>>& lanes, const void* exec, StreamId s) {
  std::vector<StreamId>& ids = exec_lanes_[exec];
  while (ids.size() + 1 < lanes.size()) ids.push_back(next_stream_++);
  std::map<int, EventId> fresh;  // slot -> this replay's event
  std::vector<std::size_t> pos(lanes.size(), 0);
  auto step = [&](std::size_t l, bool force) {
    const Node& n = lanes[l][pos[l]];
    const StreamId ls = l == 0 ? s : ids[l - 1];
    if (n.kind == Node::event_wait && n.slot >= 0 && !fresh.count(n.slot) && !force) return false;
    switch (n.kind) {
      case Node::launch: checker_.launch(ls, n.name + " (graph replay)", n.ranges); break;
      case Node::event_record:
        fresh[n.slot] = next_event_++;
        checker_.record_event(fresh[n.slot], ls);
        break;
      case Node::event_wait:
        if (n.slot < 0) checker_.wait_event(ls, n.event);
        else if (fresh.count(n.slot)) checker_.wait_event(ls, fresh[n.slot]);
        break;
    }
    ++pos[l];
    return true;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t l = 0; l < lanes.size(); ++l)
      while (pos[l] < lanes[l].size() && step(l, false)) progress = true;
  }
  for (std::size_t l = 0; l < lanes.size(); ++l)  // a wait with no record (never after a checked end_capture)
    while (pos[l] < lanes[l].size()) step(l, true);
}
void RuntimeRaceObserver::on_free(const void* ptr, std::size_t bytes) {
  std::lock_guard lock(mu_);
  const auto b = reinterpret_cast<std::uintptr_t>(ptr);
  checker_.release(b, b + bytes);
}

}  // namespace dsv4::race
