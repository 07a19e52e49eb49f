// cuda and hip backends: the host runtime API of kernels/port/runtime.hpp over the vendor runtime (one source for
// both: kernels/backend/gpu/gpu_api.hpp maps the gpu* names to cuda* or hip*), and the checked launch used by
// dsv4::port::launch. Every runtime call goes through check(), which throws dsv4::port::Error naming the call and the
// error. Streams are created non-blocking, matching the sim backend's semantics.
#include <cstring>
#include <string>

#include "kernels/backend/gpu/gpu_api.hpp"
#include "kernels/port/detail/capture_origins.hpp"
#include "kernels/port/detail/launch_log.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::port {

namespace {
void check(gpuError_t e, const std::string& call) {
  if (e != gpuSuccess) {
    throw Error(DSV4_GPU_PREFIX ": " + call + " failed: " + gpuGetErrorName(e) + " (" + gpuGetErrorString(e) + ")");
  }
}
gpuStream_t cs(Stream& s) { return static_cast<gpuStream_t>(s.native()); }
dim3 d3(const Dim3& d) { return dim3(d.x, d.y, d.z); }
}  // namespace

Backend backend() { return kGpuBackend; }
std::string_view backend_name() { return DSV4_GPU_PREFIX; }

std::string device_unavailable_reason() {
  int n = 0;
  const gpuError_t e = gpuGetDeviceCount(&n);
  if (e != gpuSuccess) {
    (void)gpuGetLastError();  // clear
    return std::string("no " DSV4_GPU_VENDOR " device: " DSV4_GPU_PREFIX "GetDeviceCount returned ") + gpuGetErrorName(e);
  }
  if (n == 0) return "no " DSV4_GPU_VENDOR " device present";
  gpuDeviceProp p{};
  check(gpuGetDeviceProperties(&p, 0), DSV4_GPU_PREFIX "GetDeviceProperties(0)");
  return gpu_arch_problem(p);
}
bool device_available() { return device_unavailable_reason().empty(); }

const ArchProfile& device_profile() {
  static const ArchProfile profile = [] {
    const std::string why = device_unavailable_reason();
    if (!why.empty()) throw Error(DSV4_GPU_PREFIX ": device_profile: " + why);
    gpuDeviceProp p{};
    check(gpuGetDeviceProperties(&p, 0), DSV4_GPU_PREFIX "GetDeviceProperties(0)");
    return gpu_profile(p);
  }();
  return profile;
}

void device_synchronize() {
  check(gpuDeviceSynchronize(), DSV4_GPU_PREFIX "DeviceSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}

// ---- DeviceBuffer ----
DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check(gpuMalloc(&ptr_, bytes ? bytes : 1), DSV4_GPU_PREFIX "Malloc(" + std::to_string(bytes) + " B)");
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    if (RuntimeObserver* o = runtime_observer()) o->on_free(ptr_, bytes_);
  if (ptr_) (void)gpuFree(ptr_);  // cannot throw from a destructor; gpuFree synchronises
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) (void)gpuFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}
namespace {
bool stream_capturing(gpuStream_t s) {
  gpuStreamCaptureStatus st = gpuStreamCaptureStatusNone;
  check(gpuStreamIsCapturing(s, &st), DSV4_GPU_PREFIX "StreamIsCapturing");
  return st == gpuStreamCaptureStatusActive;
}
void observe_memory_op(Stream& s, const char* op, std::vector<BufferRange> ranges) {
  if (RuntimeObserver* o = runtime_observer()) o->on_memory_op(s.native(), op, ranges, stream_capturing(cs(s)));
}
void observe_device_sync() {
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}
void check_range(const char* call, std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset) {
    throw Error(std::string(DSV4_GPU_PREFIX ": ") + call + ": range [" + std::to_string(offset) + ", " +
                std::to_string(offset + bytes) + ") is outside the " + std::to_string(size) + " B buffer");
  }
}
}  // namespace
void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t off) {
  check_range("copy_from_host", off, bytes, bytes_);
  check(gpuDeviceSynchronize(), DSV4_GPU_PREFIX "DeviceSynchronize (before copy_from_host)");
  observe_device_sync();
  check(gpuMemcpy(static_cast<char*>(ptr_) + off, src, bytes, gpuMemcpyHostToDevice), DSV4_GPU_PREFIX "Memcpy H2D");
}
void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t off) const {
  check_range("copy_to_host", off, bytes, bytes_);
  check(gpuDeviceSynchronize(), DSV4_GPU_PREFIX "DeviceSynchronize (before copy_to_host)");
  observe_device_sync();
  check(gpuMemcpy(dst, static_cast<const char*>(ptr_) + off, bytes, gpuMemcpyDeviceToHost), DSV4_GPU_PREFIX "Memcpy D2H");
}
void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, Stream& s, std::size_t off) {
  check_range("copy_from_host_async", off, bytes, bytes_);
  observe_memory_op(s, "memcpy_async", {writes(static_cast<char*>(ptr_) + off, bytes, "dst")});
  check(gpuMemcpyAsync(static_cast<char*>(ptr_) + off, src, bytes, gpuMemcpyHostToDevice, cs(s)),
        DSV4_GPU_PREFIX "MemcpyAsync H2D");
}
void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, Stream& s, std::size_t off) const {
  check_range("copy_to_host_async", off, bytes, bytes_);
  observe_memory_op(s, "memcpy_async", {reads(static_cast<const char*>(ptr_) + off, bytes, "src")});
  check(gpuMemcpyAsync(dst, static_cast<const char*>(ptr_) + off, bytes, gpuMemcpyDeviceToHost, cs(s)),
        DSV4_GPU_PREFIX "MemcpyAsync D2H");
}
void DeviceBuffer::memset(int v) {
  check(gpuDeviceSynchronize(), DSV4_GPU_PREFIX "DeviceSynchronize (before memset)");
  observe_device_sync();
  check(gpuMemset(ptr_, v, bytes_), DSV4_GPU_PREFIX "Memset");
}
void DeviceBuffer::memset_async(int v, Stream& s, std::size_t off, std::size_t bytes) {
  if (bytes == SIZE_MAX) bytes = off <= bytes_ ? bytes_ - off : 0;
  check_range("memset_async", off, bytes, bytes_);
  observe_memory_op(s, "memset_async", {writes(static_cast<char*>(ptr_) + off, bytes, "dst")});
  check(gpuMemsetAsync(static_cast<char*>(ptr_) + off, v, bytes, cs(s)), DSV4_GPU_PREFIX "MemsetAsync");
}
void copy_device_async(DeviceBuffer& dst, std::size_t dst_off, const DeviceBuffer& src, std::size_t src_off,
                       std::size_t bytes, Stream& s) {
  check_range("copy_device_async (dst)", dst_off, bytes, dst.bytes());
  check_range("copy_device_async (src)", src_off, bytes, src.bytes());
  observe_memory_op(s, "memcpy_async", {reads(src.as<char>() + src_off, bytes, "src"),
                                         writes(dst.as<char>() + dst_off, bytes, "dst")});
  check(gpuMemcpyAsync(dst.as<char>() + dst_off, src.as<char>() + src_off, bytes, gpuMemcpyDeviceToDevice, cs(s)),
        DSV4_GPU_PREFIX "MemcpyAsync D2D");
}

// ---- Stream ----
Stream::Stream() : owned_(true) {
  gpuStream_t s = nullptr;
  check(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking), DSV4_GPU_PREFIX "StreamCreateWithFlags");
  handle_ = s;
}
Stream::~Stream() {
  if (owned_ && handle_) (void)gpuStreamDestroy(static_cast<gpuStream_t>(handle_));
}
Stream::Stream(Stream&& o) noexcept : handle_(o.handle_), owned_(o.owned_) { o.handle_ = nullptr; }
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (owned_ && handle_) (void)gpuStreamDestroy(static_cast<gpuStream_t>(handle_));
    handle_ = o.handle_;
    owned_ = o.owned_;
    o.handle_ = nullptr;
  }
  return *this;
}
Stream& Stream::default_stream() {
  static Stream s(nullptr, false);
  return s;
}
void Stream::synchronize() {
  check(gpuStreamSynchronize(cs(*this)), DSV4_GPU_PREFIX "StreamSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_stream_sync(handle_);
}
namespace {
// The capture id of a capturing stream, 0 when it is not capturing.
unsigned long long capture_id(gpuStream_t s) {
  gpuStreamCaptureStatus st = gpuStreamCaptureStatusNone;
  unsigned long long id = 0;
  check(gpuStreamGetCaptureInfo(s, &st, &id), DSV4_GPU_PREFIX "StreamGetCaptureInfo");
  return st == gpuStreamCaptureStatusActive ? id : 0;
}
}  // namespace

void Stream::wait(const Event& e) {
  const bool was_capturing = stream_capturing(cs(*this));
  check(gpuStreamWaitEvent(cs(*this), static_cast<gpuEvent_t>(e.native()), 0), DSV4_GPU_PREFIX "StreamWaitEvent");
  if (RuntimeObserver* o = runtime_observer()) {
    const unsigned long long id = capture_id(cs(*this));
    if (!was_capturing && id != 0) o->on_capture_join(handle_, detail::capture_origin(id));  // cross-stream capture
    o->on_event_wait(handle_, e.native(), id != 0);
  }
}
void Stream::begin_capture() {
  check(gpuStreamBeginCapture(cs(*this), gpuStreamCaptureModeThreadLocal), DSV4_GPU_PREFIX "StreamBeginCapture");
  detail::note_capture_begin(capture_id(cs(*this)), handle_);
}
Graph Stream::end_capture() {
  gpuGraph_t g = nullptr;
  const unsigned long long id = capture_id(cs(*this));
  check(gpuStreamEndCapture(cs(*this), &g), DSV4_GPU_PREFIX "StreamEndCapture");
  detail::note_capture_end(id);
  if (RuntimeObserver* o = runtime_observer()) o->on_capture_end(handle_, g);
  return Graph(g);
}
bool Stream::capturing() const {
  gpuStreamCaptureStatus st{};
  check(gpuStreamIsCapturing(static_cast<gpuStream_t>(handle_), &st), DSV4_GPU_PREFIX "StreamIsCapturing");
  return st == gpuStreamCaptureStatusActive;
}

// ---- Event ----
Event::Event() {
  gpuEvent_t e = nullptr;
  check(gpuEventCreate(&e), DSV4_GPU_PREFIX "EventCreate");
  handle_ = e;
}
Event::~Event() {
  if (handle_) (void)gpuEventDestroy(static_cast<gpuEvent_t>(handle_));
}
Event::Event(Event&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)gpuEventDestroy(static_cast<gpuEvent_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void Event::record(Stream& s) {
  if (RuntimeObserver* o = runtime_observer()) o->on_event_record(handle_, s.native(), stream_capturing(cs(s)));
  check(gpuEventRecord(static_cast<gpuEvent_t>(handle_), cs(s)), DSV4_GPU_PREFIX "EventRecord");
}
void Event::synchronize() const {
  check(gpuEventSynchronize(static_cast<gpuEvent_t>(handle_)), DSV4_GPU_PREFIX "EventSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_event_sync(handle_);
}
bool Event::query() const {
  const gpuError_t e = gpuEventQuery(static_cast<gpuEvent_t>(handle_));
  if (e == gpuErrorNotReady) return false;
  check(e, DSV4_GPU_PREFIX "EventQuery");
  return true;
}
float Event::elapsed_ms(const Event& start, const Event& end) {
  float ms = 0;
  check(gpuEventElapsedTime(&ms, static_cast<gpuEvent_t>(start.handle_), static_cast<gpuEvent_t>(end.handle_)),
        DSV4_GPU_PREFIX "EventElapsedTime");
  return ms;
}

// ---- Graph ----
Graph::~Graph() {
  if (handle_) (void)gpuGraphDestroy(static_cast<gpuGraph_t>(handle_));
}
Graph::Graph(Graph&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Graph& Graph::operator=(Graph&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)gpuGraphDestroy(static_cast<gpuGraph_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
GraphExec Graph::instantiate() const {
  gpuGraphExec_t ge = nullptr;
  check(gpu_graph_instantiate(&ge, static_cast<gpuGraph_t>(handle_)), DSV4_GPU_PREFIX "GraphInstantiate");
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_instantiate(handle_, ge);
  return GraphExec(ge);
}
GraphExec::~GraphExec() {
  if (handle_) (void)gpuGraphExecDestroy(static_cast<gpuGraphExec_t>(handle_));
}
GraphExec::GraphExec(GraphExec&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
GraphExec& GraphExec::operator=(GraphExec&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)gpuGraphExecDestroy(static_cast<gpuGraphExec_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void GraphExec::launch(Stream& s) {
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_launch(handle_, s.native());
  check(gpuGraphLaunch(static_cast<gpuGraphExec_t>(handle_), cs(s)), DSV4_GPU_PREFIX "GraphLaunch");
}

// ---- launch ----
namespace detail {
void gpu_launch(const void* kernel, const LaunchConfig& cfg, void** args) {
  const std::string what = describe_launch(cfg);
  auto fail = [&](const std::string& call, gpuError_t e) {
    (void)gpuGetLastError();  // a failed launch also sets the last error: clear it so later launches check clean
    throw Error(DSV4_GPU_PREFIX ": launch of " + what + ": " + call + " failed: " + gpuGetErrorName(e) + " (" +
                gpuGetErrorString(e) + ")");
  };
  gpuFuncAttributes attr{};
  if (gpuError_t e = gpuFuncGetAttributes(&attr, kernel); e != gpuSuccess) fail(DSV4_GPU_PREFIX "FuncGetAttributes", e);
  const std::size_t cap = device_profile().lds_bytes_per_block;
  if (attr.sharedSizeBytes + cfg.dynamic_lds_bytes > cap) {
    throw Error(DSV4_GPU_PREFIX ": launch of " + what + ": static " + std::to_string(attr.sharedSizeBytes) + " B + dynamic " +
                std::to_string(cfg.dynamic_lds_bytes) + " B LDS exceeds the device's capacity of " +
                std::to_string(cap) + " B");
  }
  if (cfg.dynamic_lds_bytes > 48 * 1024) {
    if (gpuError_t e = gpuFuncSetAttribute(kernel, gpuFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(cfg.dynamic_lds_bytes));
        e != gpuSuccess)
      fail(DSV4_GPU_PREFIX "FuncSetAttribute(MaxDynamicSharedMemorySize)", e);
  }
  if (const std::string why = cluster_problem(cfg, device_profile()); !why.empty())
    throw Error(DSV4_GPU_PREFIX ": launch of " + what + " refused: " + why);
  gpuStream_t s = cfg.stream ? static_cast<gpuStream_t>(cfg.stream->native()) : nullptr;
  gpuStreamCaptureStatus st = gpuStreamCaptureStatusNone;
  if (gpuError_t e = gpuStreamIsCapturing(s, &st); e != gpuSuccess) fail(DSV4_GPU_PREFIX "StreamIsCapturing", e);
  record_launch(cfg, s, st == gpuStreamCaptureStatusActive);
  if (const GpuLaunchResult r = gpu_launch_kernel(kernel, cfg, s, args); r.failed_call) fail(r.failed_call, r.error);
  if (gpuError_t e = gpuGetLastError(); e != gpuSuccess) fail(DSV4_GPU_PREFIX "GetLastError (after launch)", e);
}
}  // namespace detail

}  // namespace dsv4::port
