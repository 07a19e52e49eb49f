// sim backend: the host runtime API of kernels/port/runtime.hpp. Device buffers are separate host allocations;
// copies, memsets, event records and waits are stream ops executed in order by the executor; synchronous calls
// drive the executor until their condition holds and rethrow any launch failure.
#include <cstdlib>
#include <cstring>

#include "kernels/backend/sim/sim_internal.hpp"
#include "kernels/port/detail/launch_log.hpp"

namespace dsv4::port {

using sim::detail::Executor;
using sim::detail::Op;
using sim::detail::SimEvent;
using sim::detail::CaptureSession;
using sim::detail::SimGraph;
using sim::detail::SimGraphExec;
using sim::detail::SimStream;

Backend backend() { return Backend::sim; }
std::string_view backend_name() { return "sim"; }
bool device_available() { return true; }
std::string device_unavailable_reason() { return {}; }
const ArchProfile& device_profile() { return *Executor::get().profile; }
void device_synchronize() {
  Executor::get().synchronize_all();
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}

namespace {
SimStream* sim_stream(Stream& s) { return static_cast<SimStream*>(s.native()); }
void check_range(const char* call, std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset) {
    throw Error(std::string("sim: ") + call + ": range [" + std::to_string(offset) + ", " +
                std::to_string(offset + bytes) + ") is outside the " + std::to_string(size) + " B buffer");
  }
}
void enqueue_fn(Stream& s, std::function<void()> fn) {
  Executor::get().enqueue(sim_stream(s), Op{Op::host_fn, nullptr, nullptr, std::move(fn), nullptr, 0});
}
void observe_memory_op(Stream& s, const char* op, std::vector<BufferRange> ranges) {
  if (RuntimeObserver* o = runtime_observer()) o->on_memory_op(s.native(), op, ranges, sim_stream(s)->capturing);
}
void observe_device_sync() {
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}
}  // namespace

// ---- DeviceBuffer ----
DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  ptr_ = std::malloc(bytes ? bytes : 1);  // own allocation: ASan sees overflows
  if (!ptr_) throw Error("sim: DeviceBuffer: allocation of " + std::to_string(bytes) + " B failed");
  std::memset(ptr_, 0xCD, bytes);
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) {
    try {
      Executor::get().synchronize_all(/*keep_errors=*/true);  // work in flight may still use it
    } catch (...) {
    }
    if (RuntimeObserver* o = runtime_observer()) o->on_free(ptr_, bytes_);
    std::free(ptr_);
  }
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    DeviceBuffer tmp(std::move(*this));
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}
void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t dst_offset) {
  check_range("copy_from_host", dst_offset, bytes, bytes_);
  Executor::get().synchronize_all();
  observe_device_sync();
  std::memcpy(static_cast<char*>(ptr_) + dst_offset, src, bytes);
}
void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t src_offset) const {
  check_range("copy_to_host", src_offset, bytes, bytes_);
  Executor::get().synchronize_all();
  observe_device_sync();
  std::memcpy(dst, static_cast<const char*>(ptr_) + src_offset, bytes);
}
void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, Stream& s, std::size_t dst_offset) {
  check_range("copy_from_host_async", dst_offset, bytes, bytes_);
  char* d = static_cast<char*>(ptr_) + dst_offset;
  observe_memory_op(s, "memcpy_async", {writes(d, bytes, "dst")});
  enqueue_fn(s, [d, src, bytes] { std::memcpy(d, src, bytes); });
}
void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, Stream& s, std::size_t src_offset) const {
  check_range("copy_to_host_async", src_offset, bytes, bytes_);
  const char* p = static_cast<const char*>(ptr_) + src_offset;
  observe_memory_op(s, "memcpy_async", {reads(p, bytes, "src")});
  enqueue_fn(s, [dst, p, bytes] { std::memcpy(dst, p, bytes); });
}
void DeviceBuffer::memset(int value) {
  Executor::get().synchronize_all();
  observe_device_sync();
  std::memset(ptr_, value, bytes_);
}
void DeviceBuffer::memset_async(int value, Stream& s, std::size_t offset, std::size_t bytes) {
  if (bytes == SIZE_MAX) bytes = offset <= bytes_ ? bytes_ - offset : 0;
  check_range("memset_async", offset, bytes, bytes_);
  char* d = static_cast<char*>(ptr_) + offset;
  observe_memory_op(s, "memset_async", {writes(d, bytes, "dst")});
  enqueue_fn(s, [d, value, bytes] { std::memset(d, value, bytes); });
}
void copy_device_async(DeviceBuffer& dst, std::size_t dst_offset, const DeviceBuffer& src, std::size_t src_offset,
                       std::size_t bytes, Stream& s) {
  check_range("copy_device_async (dst)", dst_offset, bytes, dst.bytes());
  check_range("copy_device_async (src)", src_offset, bytes, src.bytes());
  char* d = dst.as<char>() + dst_offset;
  const char* p = src.as<char>() + src_offset;
  observe_memory_op(s, "memcpy_async", {reads(p, bytes, "src"), writes(d, bytes, "dst")});
  enqueue_fn(s, [d, p, bytes] { std::memmove(d, p, bytes); });
}

// ---- Stream ----
Stream::Stream() : handle_(Executor::get().new_stream()), owned_(true) {}
Stream::~Stream() {
  if (owned_ && handle_) Executor::get().release_stream(sim_stream(*this));
}
Stream::Stream(Stream&& o) noexcept : handle_(o.handle_), owned_(o.owned_) { o.handle_ = nullptr; }
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (owned_ && handle_) Executor::get().release_stream(sim_stream(*this));
    handle_ = o.handle_;
    owned_ = o.owned_;
    o.handle_ = nullptr;
  }
  return *this;
}
Stream& Stream::default_stream() {
  static Stream s(Executor::get().default_stream(), false);
  return s;
}
void Stream::synchronize() {
  SimStream* s = sim_stream(*this);
  if (s->capturing) throw Error("sim: Stream::synchronize during stream capture");
  Executor::get().drive([s] { return s->queue.empty(); });
  if (RuntimeObserver* o = runtime_observer()) o->on_stream_sync(handle_);
}
void Stream::wait(const Event& e) {
  auto ev = *static_cast<std::shared_ptr<SimEvent>*>(e.native());
  SimStream* s = sim_stream(*this);
  RuntimeObserver* o = runtime_observer();
  std::shared_ptr<CaptureSession> cap = ev->capture && ev->capture->open ? ev->capture : nullptr;
  if (cap && s->capturing && s->session != cap)
    throw Error("sim: Stream::wait: the event was recorded in another stream's capture (CUDA: "
                "cudaErrorStreamCaptureIsolation)");
  if (cap && !s->capturing) {  // cross-stream capture: this stream joins as a new lane
    s->capturing = true;
    s->session = cap;
    s->lane = cap->members.size();
    cap->members.push_back(s);
    cap->graph->lanes.emplace_back();
    if (o) o->on_capture_join(handle_, cap->origin);
  }
  if (o) o->on_event_wait(handle_, e.native(), s->capturing);
  Op op{Op::event_wait, nullptr, nullptr, {}, ev, ev->recorded};
  if (cap) {  // an edge inside the graph: the replay waits on the record's private event
    op.event = nullptr;
    op.slot = ev->capture_slot;
  }
  Executor::get().enqueue(s, std::move(op));
}
void Stream::begin_capture() {
  SimStream* s = sim_stream(*this);
  if (s->capturing) throw Error("sim: Stream::begin_capture: the stream is already capturing");
  s->capturing = true;
  s->session = std::make_shared<CaptureSession>();
  s->session->origin = s;
  s->session->members = {s};
  s->lane = 0;
}

namespace {
// CUDA's rule for ending a cross-stream capture: every joined lane must end in an event record that a lane already
// known to be joined (the origin first) waits on. Returns the first lane that is not joined back, or 0.
std::size_t unjoined_lane(const SimGraph& g) {
  std::vector<bool> joined(g.lanes.size(), false);
  joined[0] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t l = 1; l < g.lanes.size(); ++l) {
      if (joined[l]) continue;
      const auto& lane = g.lanes[l];
      if (lane.empty() || lane.back().kind != Op::event_record || lane.back().slot < 0) continue;
      const int slot = lane.back().slot;
      for (std::size_t j = 0; j < g.lanes.size() && !joined[l]; ++j)
        if (joined[j] && j != l)
          for (const Op& op : g.lanes[j])
            if (op.kind == Op::event_wait && op.slot == slot) {
              joined[l] = true;
              changed = true;
              break;
            }
    }
  }
  for (std::size_t l = 1; l < g.lanes.size(); ++l)
    if (!joined[l]) return l;
  return 0;
}
}  // namespace

Graph Stream::end_capture() {
  SimStream* s = sim_stream(*this);
  if (!s->capturing) throw Error("sim: Stream::end_capture: the stream is not capturing");
  std::shared_ptr<CaptureSession> cap = s->session;
  if (cap->origin != s)
    throw Error("sim: Stream::end_capture: called on a stream that joined another stream's capture; end it on the "
                "stream that began it (CUDA: cudaErrorStreamCaptureUnmatched)");
  cap->open = false;
  for (SimStream* m : cap->members) {
    m->capturing = false;
    m->session.reset();
    m->lane = 0;
  }
  if (const std::size_t l = unjoined_lane(*cap->graph))
    throw Error("sim: Stream::end_capture: stream " + std::to_string(l) + " of the capture (joined through an event) "
                "has work that is not joined back into the stream that began it: record an event on it and wait "
                "on that event before end_capture (CUDA: cudaErrorStreamCaptureUnjoined)");
  auto* g = new std::shared_ptr<SimGraph>(cap->graph);
  if (RuntimeObserver* o = runtime_observer()) o->on_capture_end(handle_, g);
  return Graph(g);
}
bool Stream::capturing() const { return static_cast<SimStream*>(handle_)->capturing; }

// ---- Event ----
Event::Event() : handle_(new std::shared_ptr<SimEvent>(std::make_shared<SimEvent>())) {}
Event::~Event() { delete static_cast<std::shared_ptr<SimEvent>*>(handle_); }
Event::Event(Event&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    delete static_cast<std::shared_ptr<SimEvent>*>(handle_);
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void Event::record(Stream& s) {
  auto ev = *static_cast<std::shared_ptr<SimEvent>*>(handle_);
  SimStream* ss = sim_stream(s);
  if (RuntimeObserver* o = runtime_observer()) o->on_event_record(handle_, s.native(), ss->capturing);
  if (ss->capturing) {  // a graph-private event: later waits on this event inside the capture become edges
    ev->capture = ss->session;
    ev->capture_slot = ss->session->graph->event_slots++;
    Op op{Op::event_record, nullptr, nullptr, {}, nullptr, 0};
    op.slot = ev->capture_slot;
    Executor::get().enqueue(ss, std::move(op));
    return;
  }
  ev->capture.reset();
  ev->capture_slot = -1;
  Executor::get().enqueue(ss, Op{Op::event_record, nullptr, nullptr, {}, ev, ++ev->recorded});
}
void Event::synchronize() const {
  auto ev = *static_cast<std::shared_ptr<SimEvent>*>(handle_);
  const std::uint64_t target = ev->recorded;
  Executor::get().drive([ev, target] { return ev->completed >= target; });
  if (RuntimeObserver* o = runtime_observer()) o->on_event_sync(handle_);
}
bool Event::query() const {
  auto& ev = *static_cast<std::shared_ptr<SimEvent>*>(handle_);
  return ev->completed >= ev->recorded;
}
float Event::elapsed_ms(const Event& start, const Event& end) {
  if (!start.query() || !end.query()) throw Error("sim: Event::elapsed_ms: an event has not completed");
  return 0.0f;
}

// ---- Graph ----
Graph::~Graph() { delete static_cast<std::shared_ptr<SimGraph>*>(handle_); }
Graph::Graph(Graph&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Graph& Graph::operator=(Graph&& o) noexcept {
  if (this != &o) {
    delete static_cast<std::shared_ptr<SimGraph>*>(handle_);
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
GraphExec Graph::instantiate() const {
  if (!handle_) throw Error("sim: Graph::instantiate on an empty graph object");
  GraphExec ge(new SimGraphExec{*static_cast<std::shared_ptr<SimGraph>*>(handle_), {}});
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_instantiate(handle_, ge.native());
  return ge;
}
GraphExec::~GraphExec() {
  auto* e = static_cast<SimGraphExec*>(handle_);
  if (!e) return;
  for (SimStream* s : e->lane_streams) Executor::get().release_stream(s);
  delete e;
}
GraphExec::GraphExec(GraphExec&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
GraphExec& GraphExec::operator=(GraphExec&& o) noexcept {
  if (this != &o) {
    GraphExec old(std::move(*this));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void GraphExec::launch(Stream& s) {
  if (!handle_) throw Error("sim: GraphExec::launch on an empty graph executable");
  Executor& ex = Executor::get();
  SimStream* ss = sim_stream(s);
  if (ss->capturing) throw Error("sim: GraphExec::launch into a capturing stream is not supported");
  auto* exec = static_cast<SimGraphExec*>(handle_);
  const SimGraph& graph = *exec->graph;
  while (exec->lane_streams.size() + 1 < graph.lanes.size()) exec->lane_streams.push_back(ex.new_stream());
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_launch(handle_, s.native());
  // Fresh private events per replay: each slot is recorded once, so every wait on it targets record 1.
  std::vector<std::shared_ptr<SimEvent>> slots(static_cast<std::size_t>(graph.event_slots));
  for (auto& e : slots) e = std::make_shared<SimEvent>();
  for (std::size_t l = 0; l < graph.lanes.size(); ++l) {
    SimStream* ls = l == 0 ? ss : exec->lane_streams[l - 1];
    for (const Op& g : graph.lanes[l]) {
      Op op = g;
      if (op.kind == Op::kernel) {
        op.launch = std::make_shared<sim::detail::LaunchExec>();
        op.launch->spec = op.spec;
        op.launch->stream = ls;
        LaunchConfig cfg = op.spec->cfg;
        cfg.stream = l == 0 ? &s : nullptr;
        op.launch->id = detail::record_launch(cfg, ls, false, /*notify=*/false);
      } else if (op.slot >= 0) {
        op.event = slots[static_cast<std::size_t>(op.slot)];
        op.target = 1;
      } else if (op.kind == Op::event_record) {
        op.target = ++op.event->recorded;
      } else if (op.kind == Op::event_wait) {
        op.target = op.event->recorded;
      }
      ex.enqueue(ls, std::move(op));
    }
  }
}

}  // namespace dsv4::port
