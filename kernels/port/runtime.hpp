// Host-side portability API: device buffers, streams, events, graph capture/replay, device properties and the
// launch description. Backend-neutral (no CUDA/HIP headers), so any host .cpp can use it; each backend implements
// it in kernels/backend/<backend>/. Every runtime call is checked: failures throw dsv4::port::Error naming the call.
// Streams are independent (non-blocking): the default stream does NOT implicitly synchronise with other streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"

namespace dsv4::port {

enum class Backend { sim, cuda, hip };
Backend backend();                 // the backend this build was compiled for
std::string_view backend_name();   // "sim", "cuda", "hip"

// Thrown by every failed runtime call or launch; what() names the call (and kernel, grid, block for launches).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr Dim3() = default;
  constexpr Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr std::size_t count() const { return std::size_t(x) * y * z; }
  friend constexpr bool operator==(const Dim3&, const Dim3&) = default;
};
std::string to_string(const Dim3& d);  // "(x,y,z)"

// ---- device and arch -------------------------------------------------------------------------------------------
bool device_available();               // sim: always true; cuda/hip: a device is present and usable
std::string device_unavailable_reason();  // empty when available
const ArchProfile& device_profile();   // sim: the emulated profile (default gfx950); cuda: sm_90 from a device query
void device_synchronize();

// ---- memory -----------------------------------------------------------------------------------------------------
class Stream;

// RAII device allocation. On sim every buffer is its own host allocation (AddressSanitizer sees overflows).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);  // contents uninitialised (sim fills with a 0xCD pattern)
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&&) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&&) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

  // Synchronous copies (they wait for all device work first, like hipMemcpy) and asynchronous ones on a stream.
  void copy_from_host(const void* src, std::size_t bytes, std::size_t dst_offset = 0);
  void copy_to_host(void* dst, std::size_t bytes, std::size_t src_offset = 0) const;
  void copy_from_host_async(const void* src, std::size_t bytes, Stream& s, std::size_t dst_offset = 0);
  void copy_to_host_async(void* dst, std::size_t bytes, Stream& s, std::size_t src_offset = 0) const;
  void memset(int byte_value);                                   // synchronous, whole buffer
  void memset_async(int byte_value, Stream& s, std::size_t offset = 0, std::size_t bytes = SIZE_MAX);

  // Typed conveniences.
  template <class T> static DeviceBuffer from_host(std::span<const T> v) {
    DeviceBuffer b(v.size_bytes());
    if (!v.empty()) b.copy_from_host(v.data(), v.size_bytes());
    return b;
  }
  template <class T> std::vector<T> to_host() const {
    std::vector<T> v(bytes_ / sizeof(T));
    if (!v.empty()) copy_to_host(v.data(), v.size() * sizeof(T));
    return v;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Device-to-device async copy.
void copy_device_async(DeviceBuffer& dst, std::size_t dst_offset, const DeviceBuffer& src, std::size_t src_offset,
                       std::size_t bytes, Stream& s);

// ---- streams, events, graphs --------------------------------------------------------------------------------------
class Event;
class Graph;

class Stream {
 public:
  Stream();  // a new non-blocking stream
  ~Stream();
  Stream(Stream&&) noexcept;
  Stream& operator=(Stream&&) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  static Stream& default_stream();  // the backend's null stream (treated as an ordinary stream)

  void synchronize();
  void wait(const Event& e);  // later work on this stream waits for e's most recent record (no-op if never recorded)

  // Stream capture: work issued to this stream between begin and end is recorded, not run. Cross-stream capture as
  // in CUDA: another stream that waits on an event recorded inside the capture joins it (its work becomes a branch
  // of the same graph); end_capture, on the stream that began it, requires every joined stream to have been
  // joined back (an event recorded on it and waited on by the capture) and ends the capture on all of them.
  void begin_capture();
  Graph end_capture();
  bool capturing() const;

  void* native() const { return handle_; }  // cudaStream_t / hipStream_t / sim stream object

 private:
  explicit Stream(void* handle, bool owned) : handle_(handle), owned_(owned) {}
  void* handle_ = nullptr;
  bool owned_ = false;
};

class Event {
 public:
  Event();
  ~Event();
  Event(Event&&) noexcept;
  Event& operator=(Event&&) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(Stream& s);
  void synchronize() const;
  bool query() const;  // true when the last record has completed (or never recorded)
  // Milliseconds between two completed events (sim: 0, it has no clock).
  static float elapsed_ms(const Event& start, const Event& end);
  void* native() const { return handle_; }

 private:
  void* handle_ = nullptr;
};

// A captured graph, and its instantiated executable form (replayable any number of times, on any stream).
class GraphExec;
class Graph {
 public:
  Graph() = default;
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  GraphExec instantiate() const;
  void* native() const { return handle_; }

 private:
  friend class Stream;
  explicit Graph(void* h) : handle_(h) {}
  void* handle_ = nullptr;
};

class GraphExec {
 public:
  GraphExec() = default;
  ~GraphExec();
  GraphExec(GraphExec&&) noexcept;
  GraphExec& operator=(GraphExec&&) noexcept;
  // Replay: the origin stream's branch runs on s, each joined stream's branch on a stream of this executable
  // (ordered after s's earlier work through the capture's fork events); s's later work follows every branch.
  void launch(Stream& s);
  void* native() const { return handle_; }

 private:
  friend class Graph;
  explicit GraphExec(void* h) : handle_(h) {}
  void* handle_ = nullptr;
};

// ---- launch description -------------------------------------------------------------------------------------------
// The launch itself is dsv4::port::launch(kernel, config, args...) in kernels/port/hip_port.hpp (kernel TUs only).
enum class Access { read, write, read_write };

// One byte range a launch reads and/or writes (the cross-stream race checker of a later issue consumes these).
struct BufferRange {
  const void* base = nullptr;  // start of the range (e.g. buf.data() or a typed pointer into it)
  std::size_t bytes = 0;
  Access access = Access::read;
  const char* name = "";       // argument name, for reports
};
inline BufferRange reads(const void* p, std::size_t bytes, const char* name = "") {
  return {p, bytes, Access::read, name};
}
inline BufferRange writes(const void* p, std::size_t bytes, const char* name = "") {
  return {p, bytes, Access::write, name};
}
inline BufferRange reads_writes(const void* p, std::size_t bytes, const char* name = "") {
  return {p, bytes, Access::read_write, name};
}

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_lds_bytes = 0;
  Stream* stream = nullptr;          // nullptr: Stream::default_stream()
  const char* kernel_name = "";      // used in every error and report
  std::vector<BufferRange> ranges;   // what the launch reads and writes
  // Programmatic dependent launch (kernels/port/grid_dependency.hpp): the kernel may start while the previous kernel
  // on its stream finishes, so each of its threads must call port::wait_for_previous_grid() before its first global
  // memory access (sim fails the launch otherwise). cuda: the launch attribute (sm_90); hip and sim: a plain launch.
  bool overlap_previous = false;
  // Thread-block clusters (kernels/nvidia/port/cluster.hpp): consecutive groups of this many workgroups along x run at once
  // on one GPC and may read each other's LDS; grid.x must be a multiple of it and it may not exceed the profile's
  // max_cluster_blocks (1 on AMD: a launch with more is refused). 1: no clusters.
  unsigned cluster_blocks = 1;
};

// Every launch issued so far (most recent last, bounded to the last 4096), with its stream; for the race checker.
struct LaunchRecord {
  std::uint64_t id;
  std::string kernel_name;
  Dim3 grid, block;
  std::size_t dynamic_lds_bytes;
  const void* stream;  // Stream::native()
  std::vector<BufferRange> ranges;
  bool captured;       // recorded into a graph rather than run
};
std::vector<LaunchRecord> launch_log();
void clear_launch_log();

// ---- runtime observer (additive hook for the stream-order race checker, kernels/race/runtime_observer.hpp) ------
// One process-wide observer (nullptr = none) told about every stream-ordering runtime call, on every backend.
// Handles are the native() pointers of Stream / Event / Graph / GraphExec. `captured`: the call was recorded into
// the capturing stream's graph rather than run. Callbacks run on the calling host thread, before the call returns.
class RuntimeObserver {
 public:
  virtual ~RuntimeObserver() = default;
  virtual void on_launch(const LaunchRecord& launch) { (void)launch; }  // launch.captured: into a graph
  // An async copy or memset ("memcpy_async", "memset_async") with the ranges it reads and writes.
  virtual void on_memory_op(const void* stream, const char* op, const std::vector<BufferRange>& ranges,
                            bool captured) { (void)stream; (void)op; (void)ranges; (void)captured; }
  virtual void on_event_record(const void* event, const void* stream, bool captured) {
    (void)event; (void)stream; (void)captured;
  }
  virtual void on_event_wait(const void* stream, const void* event, bool captured) {
    (void)stream; (void)event; (void)captured;
  }
  virtual void on_stream_sync(const void* stream) { (void)stream; }
  virtual void on_event_sync(const void* event) { (void)event; }
  virtual void on_device_sync() {}  // device_synchronize and the synchronous copies / memset
  // `stream` joined the capture begun on `origin` (cross-stream capture: it waited on an event recorded inside that
  // capture); its later calls arrive with captured = true until the origin's end_capture, which files them under the
  // same graph as a branch of its own.
  virtual void on_capture_join(const void* stream, const void* origin) { (void)stream; (void)origin; }
  virtual void on_capture_end(const void* stream, const void* graph) { (void)stream; (void)graph; }
  virtual void on_graph_instantiate(const void* graph, const void* exec) { (void)graph; (void)exec; }
  virtual void on_graph_launch(const void* exec, const void* stream) { (void)exec; (void)stream; }
  virtual void on_free(const void* ptr, std::size_t bytes) { (void)ptr; (void)bytes; }  // DeviceBuffer released
};
void set_runtime_observer(RuntimeObserver* observer);  // not owned; nullptr detaches
RuntimeObserver* runtime_observer();

}  // namespace dsv4::port
