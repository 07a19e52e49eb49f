// hip backend (stub, no ROCm toolchain in this container; compiled only with DSV4_BACKEND=hip): the host runtime
// API of kernels/port/runtime.hpp over the HIP runtime, mirroring the cuda backend call for call. Every runtime
// call is checked (Error naming the call); streams are non-blocking; the profile comes from gcnArchName.
#include <hip/hip_runtime.h>

#include <string>

#include "kernels/port/detail/capture_origins.hpp"
#include "kernels/port/detail/launch_log.hpp"
#include "kernels/port/runtime.hpp"
#include "kernels/port/detail/tensor_map_fields.hpp"

namespace dsv4::port {

namespace {
void check(hipError_t e, const std::string& call) {
  if (e != hipSuccess) {
    throw Error("hip: " + call + " failed: " + hipGetErrorName(e) + " (" + hipGetErrorString(e) + ")");
  }
}
hipStream_t cs(Stream& s) { return static_cast<hipStream_t>(s.native()); }
dim3 d3(const Dim3& d) { return dim3(d.x, d.y, d.z); }
}  // namespace

Backend backend() { return Backend::hip; }
std::string_view backend_name() { return "hip"; }

std::string device_unavailable_reason() {
  int n = 0;
  const hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    return std::string("no HIP device: hipGetDeviceCount returned ") + hipGetErrorName(e);
  }
  if (n == 0) return "no HIP device present";
  hipDeviceProp_t p{};
  check(hipGetDeviceProperties(&p, 0), "hipGetDeviceProperties(0)");
  const std::string arch(p.gcnArchName);
  if (arch.rfind("gfx942", 0) != 0 && arch.rfind("gfx950", 0) != 0)
    return "device 0 is " + arch + ", the hip backend is built for gfx942 and gfx950";
  return {};
}
bool device_available() { return device_unavailable_reason().empty(); }

const ArchProfile& device_profile() {
  static const ArchProfile profile = [] {
    const std::string why = device_unavailable_reason();
    if (!why.empty()) throw Error("hip: device_profile: " + why);
    hipDeviceProp_t p{};
    check(hipGetDeviceProperties(&p, 0), "hipGetDeviceProperties(0)");
    ArchProfile a = std::string(p.gcnArchName).rfind("gfx950", 0) == 0 ? kGfx950 : kGfx942;
    a.compute_units = p.multiProcessorCount;
    return a;
  }();
  return profile;
}

void device_synchronize() {
  check(hipDeviceSynchronize(), "hipDeviceSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}

// ---- DeviceBuffer ----
DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check(hipMalloc(&ptr_, bytes ? bytes : 1), "hipMalloc(" + std::to_string(bytes) + " B)");
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    if (RuntimeObserver* o = runtime_observer()) o->on_free(ptr_, bytes_);
  if (ptr_) (void)hipFree(ptr_);  // cannot throw from a destructor; hipFree synchronises
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) (void)hipFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}
namespace {
bool stream_capturing(hipStream_t s) {
  hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
  check(hipStreamIsCapturing(s, &st), "hipStreamIsCapturing");
  return st == hipStreamCaptureStatusActive;
}
void observe_memory_op(Stream& s, const char* op, std::vector<BufferRange> ranges) {
  if (RuntimeObserver* o = runtime_observer()) o->on_memory_op(s.native(), op, ranges, stream_capturing(cs(s)));
}
void observe_device_sync() {
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}
void check_range(const char* call, std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset) {
    throw Error(std::string("hip: ") + call + ": range [" + std::to_string(offset) + ", " +
                std::to_string(offset + bytes) + ") is outside the " + std::to_string(size) + " B buffer");
  }
}
}  // namespace
void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t off) {
  check_range("copy_from_host", off, bytes, bytes_);
  check(hipDeviceSynchronize(), "hipDeviceSynchronize (before copy_from_host)");
  observe_device_sync();
  check(hipMemcpy(static_cast<char*>(ptr_) + off, src, bytes, hipMemcpyHostToDevice), "hipMemcpy H2D");
}
void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t off) const {
  check_range("copy_to_host", off, bytes, bytes_);
  check(hipDeviceSynchronize(), "hipDeviceSynchronize (before copy_to_host)");
  observe_device_sync();
  check(hipMemcpy(dst, static_cast<const char*>(ptr_) + off, bytes, hipMemcpyDeviceToHost), "hipMemcpy D2H");
}
void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, Stream& s, std::size_t off) {
  check_range("copy_from_host_async", off, bytes, bytes_);
  observe_memory_op(s, "memcpy_async", {writes(static_cast<char*>(ptr_) + off, bytes, "dst")});
  check(hipMemcpyAsync(static_cast<char*>(ptr_) + off, src, bytes, hipMemcpyHostToDevice, cs(s)),
        "hipMemcpyAsync H2D");
}
void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, Stream& s, std::size_t off) const {
  check_range("copy_to_host_async", off, bytes, bytes_);
  observe_memory_op(s, "memcpy_async", {reads(static_cast<const char*>(ptr_) + off, bytes, "src")});
  check(hipMemcpyAsync(dst, static_cast<const char*>(ptr_) + off, bytes, hipMemcpyDeviceToHost, cs(s)),
        "hipMemcpyAsync D2H");
}
void DeviceBuffer::memset(int v) {
  check(hipDeviceSynchronize(), "hipDeviceSynchronize (before memset)");
  observe_device_sync();
  check(hipMemset(ptr_, v, bytes_), "hipMemset");
}
void DeviceBuffer::memset_async(int v, Stream& s, std::size_t off, std::size_t bytes) {
  if (bytes == SIZE_MAX) bytes = off <= bytes_ ? bytes_ - off : 0;
  check_range("memset_async", off, bytes, bytes_);
  observe_memory_op(s, "memset_async", {writes(static_cast<char*>(ptr_) + off, bytes, "dst")});
  check(hipMemsetAsync(static_cast<char*>(ptr_) + off, v, bytes, cs(s)), "hipMemsetAsync");
}
void copy_device_async(DeviceBuffer& dst, std::size_t dst_off, const DeviceBuffer& src, std::size_t src_off,
                       std::size_t bytes, Stream& s) {
  check_range("copy_device_async (dst)", dst_off, bytes, dst.bytes());
  check_range("copy_device_async (src)", src_off, bytes, src.bytes());
  observe_memory_op(s, "memcpy_async", {reads(src.as<char>() + src_off, bytes, "src"),
                                         writes(dst.as<char>() + dst_off, bytes, "dst")});
  check(hipMemcpyAsync(dst.as<char>() + dst_off, src.as<char>() + src_off, bytes, hipMemcpyDeviceToDevice, cs(s)),
        "hipMemcpyAsync D2D");
}

// ---- Stream ----
Stream::Stream() : owned_(true) {
  hipStream_t s = nullptr;
  check(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), "hipStreamCreateWithFlags");
  handle_ = s;
}
Stream::~Stream() {
  if (owned_ && handle_) (void)hipStreamDestroy(static_cast<hipStream_t>(handle_));
}
Stream::Stream(Stream&& o) noexcept : handle_(o.handle_), owned_(o.owned_) { o.handle_ = nullptr; }
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (owned_ && handle_) (void)hipStreamDestroy(static_cast<hipStream_t>(handle_));
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
  check(hipStreamSynchronize(cs(*this)), "hipStreamSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_stream_sync(handle_);
}
namespace {
// The capture id of a capturing stream, 0 when it is not capturing.
unsigned long long capture_id(hipStream_t s) {
  hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
  unsigned long long id = 0;
  check(hipStreamGetCaptureInfo(s, &st, &id), "hipStreamGetCaptureInfo");
  return st == hipStreamCaptureStatusActive ? id : 0;
}
}  // namespace

void Stream::wait(const Event& e) {
  const bool was_capturing = stream_capturing(cs(*this));
  check(hipStreamWaitEvent(cs(*this), static_cast<hipEvent_t>(e.native()), 0), "hipStreamWaitEvent");
  if (RuntimeObserver* o = runtime_observer()) {
    const unsigned long long id = capture_id(cs(*this));
    if (!was_capturing && id != 0) o->on_capture_join(handle_, detail::capture_origin(id));  // cross-stream capture
    o->on_event_wait(handle_, e.native(), id != 0);
  }
}
void Stream::begin_capture() {
  check(hipStreamBeginCapture(cs(*this), hipStreamCaptureModeThreadLocal), "hipStreamBeginCapture");
  detail::note_capture_begin(capture_id(cs(*this)), handle_);
}
Graph Stream::end_capture() {
  hipGraph_t g = nullptr;
  const unsigned long long id = capture_id(cs(*this));
  check(hipStreamEndCapture(cs(*this), &g), "hipStreamEndCapture");
  detail::note_capture_end(id);
  if (RuntimeObserver* o = runtime_observer()) o->on_capture_end(handle_, g);
  return Graph(g);
}
bool Stream::capturing() const {
  hipStreamCaptureStatus st{};
  check(hipStreamIsCapturing(static_cast<hipStream_t>(handle_), &st), "hipStreamIsCapturing");
  return st == hipStreamCaptureStatusActive;
}

// ---- Event ----
Event::Event() {
  hipEvent_t e = nullptr;
  check(hipEventCreate(&e), "hipEventCreate");
  handle_ = e;
}
Event::~Event() {
  if (handle_) (void)hipEventDestroy(static_cast<hipEvent_t>(handle_));
}
Event::Event(Event&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)hipEventDestroy(static_cast<hipEvent_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void Event::record(Stream& s) {
  if (RuntimeObserver* o = runtime_observer()) o->on_event_record(handle_, s.native(), stream_capturing(cs(s)));
  check(hipEventRecord(static_cast<hipEvent_t>(handle_), cs(s)), "hipEventRecord");
}
void Event::synchronize() const {
  check(hipEventSynchronize(static_cast<hipEvent_t>(handle_)), "hipEventSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_event_sync(handle_);
}
bool Event::query() const {
  const hipError_t e = hipEventQuery(static_cast<hipEvent_t>(handle_));
  if (e == hipErrorNotReady) return false;
  check(e, "hipEventQuery");
  return true;
}
float Event::elapsed_ms(const Event& start, const Event& end) {
  float ms = 0;
  check(hipEventElapsedTime(&ms, static_cast<hipEvent_t>(start.handle_), static_cast<hipEvent_t>(end.handle_)),
        "hipEventElapsedTime");
  return ms;
}

// ---- Graph ----
Graph::~Graph() {
  if (handle_) (void)hipGraphDestroy(static_cast<hipGraph_t>(handle_));
}
Graph::Graph(Graph&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Graph& Graph::operator=(Graph&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)hipGraphDestroy(static_cast<hipGraph_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
GraphExec Graph::instantiate() const {
  hipGraphExec_t ge = nullptr;
  check(hipGraphInstantiate(&ge, static_cast<hipGraph_t>(handle_), nullptr, nullptr, 0), "hipGraphInstantiate");
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_instantiate(handle_, ge);
  return GraphExec(ge);
}
GraphExec::~GraphExec() {
  if (handle_) (void)hipGraphExecDestroy(static_cast<hipGraphExec_t>(handle_));
}
GraphExec::GraphExec(GraphExec&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
GraphExec& GraphExec::operator=(GraphExec&& o) noexcept {
  if (this != &o) {
    if (handle_) (void)hipGraphExecDestroy(static_cast<hipGraphExec_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void GraphExec::launch(Stream& s) {
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_launch(handle_, s.native());
  check(hipGraphLaunch(static_cast<hipGraphExec_t>(handle_), cs(s)), "hipGraphLaunch");
}

// ---- launch ----
namespace detail {
void gpu_launch(const void* kernel, const LaunchConfig& cfg, void** args) {
  const std::string what = describe_launch(cfg);
  auto fail = [&](const std::string& call, hipError_t e) {
    (void)hipGetLastError();  // a failed launch also sets the last error: clear it so later launches check clean
    throw Error("hip: launch of " + what + ": " + call + " failed: " + hipGetErrorName(e) + " (" +
                hipGetErrorString(e) + ")");
  };
  hipFuncAttributes attr{};
  if (hipError_t e = hipFuncGetAttributes(&attr, kernel); e != hipSuccess) fail("hipFuncGetAttributes", e);
  const std::size_t cap = device_profile().lds_bytes_per_block;
  if (attr.sharedSizeBytes + cfg.dynamic_lds_bytes > cap) {
    throw Error("hip: launch of " + what + ": static " + std::to_string(attr.sharedSizeBytes) + " B + dynamic " +
                std::to_string(cfg.dynamic_lds_bytes) + " B LDS exceeds the device's capacity of " +
                std::to_string(cap) + " B");
  }
  if (cfg.dynamic_lds_bytes > 48 * 1024) {
    if (hipError_t e = hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(cfg.dynamic_lds_bytes));
        e != hipSuccess)
      fail("hipFuncSetAttribute(MaxDynamicSharedMemorySize)", e);
  }
  hipStream_t s = cfg.stream ? static_cast<hipStream_t>(cfg.stream->native()) : nullptr;
  hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
  if (hipError_t e = hipStreamIsCapturing(s, &st); e != hipSuccess) fail("hipStreamIsCapturing", e);
  if (const std::string why = cluster_problem(cfg, device_profile()); !why.empty())
    throw Error("hip: launch of " + what + " refused: " + why);
  record_launch(cfg, s, st == hipStreamCaptureStatusActive);
  if (hipError_t e = hipLaunchKernel(kernel, d3(cfg.grid), d3(cfg.block), args, cfg.dynamic_lds_bytes, s);
      e != hipSuccess)
    fail("hipLaunchKernel", e);
  if (hipError_t e = hipGetLastError(); e != hipSuccess) fail("hipGetLastError (after launch)", e);
}
}  // namespace detail

TensorMap2d make_tensor_map_2d(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                               int box_rows) {
  detail::check_tensor_map_2d(base, rows, cols, row_stride_bytes, box_rows);
  throw Error("hip: make_tensor_map_2d: bulk tensor copies are not available on AMD targets");
}

TensorMap2d make_tensor_map_panels(const void* base, std::int64_t rows, std::int64_t cols,
                                   std::int64_t row_stride_bytes, int box_rows, int panels) {
  detail::check_tensor_map_panels(base, rows, cols, row_stride_bytes, box_rows, panels);
  throw Error("hip: make_tensor_map_panels: bulk tensor copies are not available on AMD targets");
}

}  // namespace dsv4::port
