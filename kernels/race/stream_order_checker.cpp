// Vector-clock stream-order race checker; see stream_order_checker.hpp.
#include "kernels/race/stream_order_checker.hpp"

#include <algorithm>
#include <cstdio>

namespace dsv4::race {

namespace {
void merge_into(VectorClock& dst, const VectorClock& src) {
  for (auto& [s, c] : src) dst[s] = std::max(dst[s], c);
}
std::string hex(std::uintptr_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
}  // namespace

std::string RaceReport::str() const {
  return "race (" + kind + ") on bytes [" + hex(begin) + ", " + hex(end) + ") (" + std::to_string(end - begin) +
         " B): launch #" + std::to_string(first.sequence) + " '" + first.kernel + "' on stream " +
         std::to_string(first.stream) + " (" + first_what + ") and launch #" + std::to_string(second.sequence) +
         " '" + second.kernel + "' on stream " + std::to_string(second.stream) + " (" + second_what +
         ") are not ordered by any event, sync or stream order";
}

VectorClock& StreamOrderChecker::clock(StreamId s) { return clocks_[s]; }

bool StreamOrderChecker::ordered_before(const LaunchRecord& x, StreamId t) const {
  auto it = clocks_.find(t);
  if (it == clocks_.end()) return false;
  auto c = it->second.find(x.stream);
  return c != it->second.end() && c->second >= x.counter;
}

void StreamOrderChecker::check_and_record(const LaunchRecord& rec) {
  for (const LaunchRecord& prev : history_) {
    if (prev.stream == rec.stream) continue;  // same stream: in order by construction
    if (ordered_before(prev, rec.stream)) continue;
    for (const Range& a : prev.ranges)
      for (const Range& b : rec.ranges) {
        if (a.access == Access::read && b.access == Access::read) continue;
        const std::uintptr_t lo = std::max(a.begin, b.begin), hi = std::min(a.end, b.end);
        if (lo >= hi) continue;
        RaceReport r;
        r.first = prev;
        r.second = rec;
        r.first.ranges.clear();
        r.second.ranges.clear();
        r.begin = lo;
        r.end = hi;
        r.kind = a.access == Access::write ? (b.access == Access::write ? "write-write" : "write-read") : "read-write";
        r.first_what = a.what;
        r.second_what = b.what;
        races_.push_back(std::move(r));
      }
  }
  history_.push_back(rec);
}

void StreamOrderChecker::launch(StreamId stream, const std::string& kernel, std::vector<Range> ranges) {
  VectorClock& vc = clock(stream);
  merge_into(vc, host_);
  LaunchRecord rec;
  rec.kernel = kernel;
  rec.stream = stream;
  rec.counter = ++vc[stream];
  rec.sequence = ++sequence_;
  rec.ranges = std::move(ranges);
  check_and_record(rec);
}

void StreamOrderChecker::record_event(EventId e, StreamId stream) {
  VectorClock& vc = clock(stream);
  merge_into(vc, host_);
  events_[e] = vc;
}

void StreamOrderChecker::wait_event(StreamId stream, EventId e) {
  auto it = events_.find(e);
  if (it == events_.end()) return;  // waiting on a never-recorded event is a no-op (CUDA/HIP semantics)
  merge_into(clock(stream), it->second);
}

void StreamOrderChecker::sync_stream(StreamId stream) {
  merge_into(host_, clock(stream));
  prune();
}

void StreamOrderChecker::sync_event(EventId e) {
  auto it = events_.find(e);
  if (it != events_.end()) merge_into(host_, it->second);
  prune();
}

void StreamOrderChecker::sync_device() {
  for (auto& [s, vc] : clocks_) merge_into(host_, vc);
  prune();
}

void StreamOrderChecker::prune() {
  // Every future launch merges host_, so a launch the host has waited for is ordered before all of
  // them and can never race again.
  history_.erase(std::remove_if(history_.begin(), history_.end(),
                                [&](const LaunchRecord& r) {
                                  auto c = host_.find(r.stream);
                                  return c != host_.end() && c->second >= r.counter;
                                }),
                 history_.end());
}

void StreamOrderChecker::replay_graph(StreamId stream, const std::vector<LaunchRecord>& captured) {
  for (const LaunchRecord& node : captured) launch(stream, node.kernel + " (graph replay)", node.ranges);
}

void StreamOrderChecker::release(std::uintptr_t begin, std::uintptr_t end) {
  for (LaunchRecord& rec : history_)
    rec.ranges.erase(std::remove_if(rec.ranges.begin(), rec.ranges.end(),
                                    [&](const Range& r) { return r.begin >= begin && r.end <= end; }),
                     rec.ranges.end());
  history_.erase(std::remove_if(history_.begin(), history_.end(), [](const LaunchRecord& r) { return r.ranges.empty(); }),
                 history_.end());
}

void StreamOrderChecker::clear() {
  clocks_.clear();
  events_.clear();
  host_.clear();
  history_.clear();
  races_.clear();
  sequence_ = 0;
}

}  // namespace dsv4::race
