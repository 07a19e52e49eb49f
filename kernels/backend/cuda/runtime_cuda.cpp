// cuda backend: the host runtime API of kernels/port/runtime.hpp over the CUDA runtime, and the checked launch used
// by dsv4::port::launch. Every runtime call goes through check(), which throws dsv4::port::Error naming the call
// and the CUDA error. Streams are created non-blocking, matching the sim backend's semantics.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstring>

#include <string>

#include "kernels/port/detail/capture_origins.hpp"
#include "kernels/port/detail/launch_log.hpp"
#include "kernels/port/runtime.hpp"
#include "kernels/port/detail/tensor_map_fields.hpp"

namespace dsv4::port {

namespace {
void check(cudaError_t e, const std::string& call) {
  if (e != cudaSuccess) {
    throw Error("cuda: " + call + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}
cudaStream_t cs(Stream& s) { return static_cast<cudaStream_t>(s.native()); }
dim3 d3(const Dim3& d) { return dim3(d.x, d.y, d.z); }
}  // namespace

Backend backend() { return Backend::cuda; }
std::string_view backend_name() { return "cuda"; }

std::string device_unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear
    return std::string("no CUDA device: cudaGetDeviceCount returned ") + cudaGetErrorName(e);
  }
  if (n == 0) return "no CUDA device present";
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties(0)");
  if (p.major != 9 || p.minor != 0) {
    return "device 0 is sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", the cuda backend is built for sm_90";
  }
  return {};
}
bool device_available() { return device_unavailable_reason().empty(); }

const ArchProfile& device_profile() {
  static const ArchProfile profile = [] {
    const std::string why = device_unavailable_reason();
    if (!why.empty()) throw Error("cuda: device_profile: " + why);
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties(0)");
    ArchProfile a = kSm90;
    a.wave_size = p.warpSize;
    a.lds_bytes_per_block = p.sharedMemPerBlockOptin;
    a.compute_units = p.multiProcessorCount;
    return a;
  }();
  return profile;
}

void device_synchronize() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}

// ---- DeviceBuffer ----
DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check(cudaMalloc(&ptr_, bytes ? bytes : 1), "cudaMalloc(" + std::to_string(bytes) + " B)");
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    if (RuntimeObserver* o = runtime_observer()) o->on_free(ptr_, bytes_);
  if (ptr_) cudaFree(ptr_);  // cannot throw from a destructor; cudaFree synchronises
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}
namespace {
bool stream_capturing(cudaStream_t s) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(s, &st), "cudaStreamIsCapturing");
  return st == cudaStreamCaptureStatusActive;
}
void observe_memory_op(Stream& s, const char* op, std::vector<BufferRange> ranges) {
  if (RuntimeObserver* o = runtime_observer()) o->on_memory_op(s.native(), op, ranges, stream_capturing(cs(s)));
}
void observe_device_sync() {
  if (RuntimeObserver* o = runtime_observer()) o->on_device_sync();
}
void check_range(const char* call, std::size_t offset, std::size_t bytes, std::size_t size) {
  if (offset > size || bytes > size - offset) {
    throw Error(std::string("cuda: ") + call + ": range [" + std::to_string(offset) + ", " +
                std::to_string(offset + bytes) + ") is outside the " + std::to_string(size) + " B buffer");
  }
}
}  // namespace
void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t off) {
  check_range("copy_from_host", off, bytes, bytes_);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before copy_from_host)");
  observe_device_sync();
  check(cudaMemcpy(static_cast<char*>(ptr_) + off, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
}
void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t off) const {
  check_range("copy_to_host", off, bytes, bytes_);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before copy_to_host)");
  observe_device_sync();
  check(cudaMemcpy(dst, static_cast<const char*>(ptr_) + off, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}
void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, Stream& s, std::size_t off) {
  check_range("copy_from_host_async", off, bytes, bytes_);
  observe_memory_op(s, "memcpy_async", {writes(static_cast<char*>(ptr_) + off, bytes, "dst")});
  check(cudaMemcpyAsync(static_cast<char*>(ptr_) + off, src, bytes, cudaMemcpyHostToDevice, cs(s)),
        "cudaMemcpyAsync H2D");
}
void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, Stream& s, std::size_t off) const {
  check_range("copy_to_host_async", off, bytes, bytes_);
  observe_memory_op(s, "memcpy_async", {reads(static_cast<const char*>(ptr_) + off, bytes, "src")});
  check(cudaMemcpyAsync(dst, static_cast<const char*>(ptr_) + off, bytes, cudaMemcpyDeviceToHost, cs(s)),
        "cudaMemcpyAsync D2H");
}
void DeviceBuffer::memset(int v) {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before memset)");
  observe_device_sync();
  check(cudaMemset(ptr_, v, bytes_), "cudaMemset");
}
void DeviceBuffer::memset_async(int v, Stream& s, std::size_t off, std::size_t bytes) {
  if (bytes == SIZE_MAX) bytes = off <= bytes_ ? bytes_ - off : 0;
  check_range("memset_async", off, bytes, bytes_);
  observe_memory_op(s, "memset_async", {writes(static_cast<char*>(ptr_) + off, bytes, "dst")});
  check(cudaMemsetAsync(static_cast<char*>(ptr_) + off, v, bytes, cs(s)), "cudaMemsetAsync");
}
void copy_device_async(DeviceBuffer& dst, std::size_t dst_off, const DeviceBuffer& src, std::size_t src_off,
                       std::size_t bytes, Stream& s) {
  check_range("copy_device_async (dst)", dst_off, bytes, dst.bytes());
  check_range("copy_device_async (src)", src_off, bytes, src.bytes());
  observe_memory_op(s, "memcpy_async", {reads(src.as<char>() + src_off, bytes, "src"),
                                         writes(dst.as<char>() + dst_off, bytes, "dst")});
  check(cudaMemcpyAsync(dst.as<char>() + dst_off, src.as<char>() + src_off, bytes, cudaMemcpyDeviceToDevice, cs(s)),
        "cudaMemcpyAsync D2D");
}

// ---- Stream ----
Stream::Stream() : owned_(true) {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  handle_ = s;
}
Stream::~Stream() {
  if (owned_ && handle_) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
}
Stream::Stream(Stream&& o) noexcept : handle_(o.handle_), owned_(o.owned_) { o.handle_ = nullptr; }
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (owned_ && handle_) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
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
  check(cudaStreamSynchronize(cs(*this)), "cudaStreamSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_stream_sync(handle_);
}
namespace {
// The capture id of a capturing stream, 0 when it is not capturing.
unsigned long long capture_id(cudaStream_t s) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  check(cudaStreamGetCaptureInfo(s, &st, &id), "cudaStreamGetCaptureInfo");
  return st == cudaStreamCaptureStatusActive ? id : 0;
}
}  // namespace

void Stream::wait(const Event& e) {
  const bool was_capturing = stream_capturing(cs(*this));
  check(cudaStreamWaitEvent(cs(*this), static_cast<cudaEvent_t>(e.native()), 0), "cudaStreamWaitEvent");
  if (RuntimeObserver* o = runtime_observer()) {
    const unsigned long long id = capture_id(cs(*this));
    if (!was_capturing && id != 0) o->on_capture_join(handle_, detail::capture_origin(id));  // cross-stream capture
    o->on_event_wait(handle_, e.native(), id != 0);
  }
}
void Stream::begin_capture() {
  check(cudaStreamBeginCapture(cs(*this), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  detail::note_capture_begin(capture_id(cs(*this)), handle_);
}
Graph Stream::end_capture() {
  cudaGraph_t g = nullptr;
  const unsigned long long id = capture_id(cs(*this));
  check(cudaStreamEndCapture(cs(*this), &g), "cudaStreamEndCapture");
  detail::note_capture_end(id);
  if (RuntimeObserver* o = runtime_observer()) o->on_capture_end(handle_, g);
  return Graph(g);
}
bool Stream::capturing() const {
  cudaStreamCaptureStatus st{};
  check(cudaStreamIsCapturing(static_cast<cudaStream_t>(handle_), &st), "cudaStreamIsCapturing");
  return st == cudaStreamCaptureStatusActive;
}

// ---- Event ----
Event::Event() {
  cudaEvent_t e = nullptr;
  check(cudaEventCreate(&e), "cudaEventCreate");
  handle_ = e;
}
Event::~Event() {
  if (handle_) cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
}
Event::Event(Event&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (handle_) cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void Event::record(Stream& s) {
  if (RuntimeObserver* o = runtime_observer()) o->on_event_record(handle_, s.native(), stream_capturing(cs(s)));
  check(cudaEventRecord(static_cast<cudaEvent_t>(handle_), cs(s)), "cudaEventRecord");
}
void Event::synchronize() const {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)), "cudaEventSynchronize");
  if (RuntimeObserver* o = runtime_observer()) o->on_event_sync(handle_);
}
bool Event::query() const {
  const cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(handle_));
  if (e == cudaErrorNotReady) return false;
  check(e, "cudaEventQuery");
  return true;
}
float Event::elapsed_ms(const Event& start, const Event& end) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start.handle_), static_cast<cudaEvent_t>(end.handle_)),
        "cudaEventElapsedTime");
  return ms;
}

// ---- Graph ----
Graph::~Graph() {
  if (handle_) cudaGraphDestroy(static_cast<cudaGraph_t>(handle_));
}
Graph::Graph(Graph&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
Graph& Graph::operator=(Graph&& o) noexcept {
  if (this != &o) {
    if (handle_) cudaGraphDestroy(static_cast<cudaGraph_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
GraphExec Graph::instantiate() const {
  cudaGraphExec_t ge = nullptr;
  check(cudaGraphInstantiate(&ge, static_cast<cudaGraph_t>(handle_), 0), "cudaGraphInstantiate");
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_instantiate(handle_, ge);
  return GraphExec(ge);
}
GraphExec::~GraphExec() {
  if (handle_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(handle_));
}
GraphExec::GraphExec(GraphExec&& o) noexcept : handle_(o.handle_) { o.handle_ = nullptr; }
GraphExec& GraphExec::operator=(GraphExec&& o) noexcept {
  if (this != &o) {
    if (handle_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(handle_));
    handle_ = o.handle_;
    o.handle_ = nullptr;
  }
  return *this;
}
void GraphExec::launch(Stream& s) {
  if (RuntimeObserver* o = runtime_observer()) o->on_graph_launch(handle_, s.native());
  check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(handle_), cs(s)), "cudaGraphLaunch");
}

// ---- launch ----
namespace detail {
void gpu_launch(const void* kernel, const LaunchConfig& cfg, void** args) {
  const std::string what = describe_launch(cfg);
  auto fail = [&](const std::string& call, cudaError_t e) {
    (void)cudaGetLastError();  // a failed launch also sets the last error: clear it so later launches check clean
    throw Error("cuda: launch of " + what + ": " + call + " failed: " + cudaGetErrorName(e) + " (" +
                cudaGetErrorString(e) + ")");
  };
  cudaFuncAttributes attr{};
  if (cudaError_t e = cudaFuncGetAttributes(&attr, kernel); e != cudaSuccess) fail("cudaFuncGetAttributes", e);
  const std::size_t cap = device_profile().lds_bytes_per_block;
  if (attr.sharedSizeBytes + cfg.dynamic_lds_bytes > cap) {
    throw Error("cuda: launch of " + what + ": static " + std::to_string(attr.sharedSizeBytes) + " B + dynamic " +
                std::to_string(cfg.dynamic_lds_bytes) + " B LDS exceeds the sm_90 capacity of " +
                std::to_string(cap) + " B");
  }
  if (cfg.dynamic_lds_bytes > 48 * 1024) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(cfg.dynamic_lds_bytes));
        e != cudaSuccess)
      fail("cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", e);
  }
  if (const std::string why = cluster_problem(cfg, device_profile()); !why.empty())
    throw Error("cuda: launch of " + what + " refused: " + why);
  cudaStream_t s = cfg.stream ? static_cast<cudaStream_t>(cfg.stream->native()) : nullptr;
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  if (cudaError_t e = cudaStreamIsCapturing(s, &st); e != cudaSuccess) fail("cudaStreamIsCapturing", e);
  record_launch(cfg, s, st == cudaStreamCaptureStatusActive);
  // Launch attributes: programmatic dependent launch (kernels/port/grid_dependency.hpp), thread-block clusters
  // (kernels/port/cluster.hpp).
  cudaLaunchAttribute launch_attr[2]{};
  unsigned n_attr = 0;
  if (cfg.overlap_previous) {
    launch_attr[n_attr].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    launch_attr[n_attr++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cfg.cluster_blocks > 1) {
    launch_attr[n_attr].id = cudaLaunchAttributeClusterDimension;
    launch_attr[n_attr].val.clusterDim.x = cfg.cluster_blocks;
    launch_attr[n_attr].val.clusterDim.y = 1;
    launch_attr[n_attr++].val.clusterDim.z = 1;
  }
  if (n_attr > 0) {
    cudaLaunchConfig_t lc{};
    lc.gridDim = d3(cfg.grid);
    lc.blockDim = d3(cfg.block);
    lc.dynamicSmemBytes = cfg.dynamic_lds_bytes;
    lc.stream = s;
    lc.attrs = launch_attr;
    lc.numAttrs = n_attr;
    if (cudaError_t e = cudaLaunchKernelExC(&lc, kernel, args); e != cudaSuccess)
      fail("cudaLaunchKernelExC(programmatic serialization / cluster dimension)", e);
  } else if (cudaError_t e = cudaLaunchKernel(kernel, d3(cfg.grid), d3(cfg.block), args, cfg.dynamic_lds_bytes, s);
             e != cudaSuccess) {
    fail("cudaLaunchKernel", e);
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) fail("cudaGetLastError (after launch)", e);
}
}  // namespace detail

namespace {
// cuTensorMapEncodeTiled from the driver through the runtime's entry-point query (no -lcuda link), for a bf16/fp16
// tensor of `rank` dimensions (innermost first) with 128-byte swizzle.
TensorMap2d encode_tensor_map(const void* base, cuuint32_t rank, const cuuint64_t* dims, const cuuint64_t* strides,
                              const cuuint32_t* box, std::int64_t rows, std::int64_t cols) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q),
          "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
    if (q != cudaDriverEntryPointSuccess || !fn) throw Error("cuda: cuTensorMapEncodeTiled is not available");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map{};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, rank, const_cast<void*>(base), dims, strides, box,
                            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error("cuda: cuTensorMapEncodeTiled (rank " + std::to_string(rank) + ") failed with CUresult " +
                std::to_string(static_cast<int>(r)) + " (rows=" + std::to_string(rows) + ", cols=" +
                std::to_string(cols) + ")");
  static_assert(sizeof(CUtensorMap) == sizeof(TensorMap2d), "TensorMap2d holds one CUtensorMap");
  TensorMap2d m;
  std::memcpy(m.opaque, &map, sizeof map);
  return m;
}
}  // namespace

TensorMap2d make_tensor_map_2d(const void* base, std::int64_t rows, std::int64_t cols, std::int64_t row_stride_bytes,
                               int box_rows) {
  detail::check_tensor_map_2d(base, rows, cols, row_stride_bytes, box_rows);
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(row_stride_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kTensorMapBoxCols), static_cast<cuuint32_t>(box_rows)};
  return encode_tensor_map(base, 2, dims, strides, box, rows, cols);
}

// The 3-D view (64 elements, rows, cols / 64 panels): panel p of row r starts at r * row_stride + p * 128 bytes.
TensorMap2d make_tensor_map_panels(const void* base, std::int64_t rows, std::int64_t cols,
                                   std::int64_t row_stride_bytes, int box_rows, int panels) {
  detail::check_tensor_map_panels(base, rows, cols, row_stride_bytes, box_rows, panels);
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(kTensorMapBoxCols), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(cols / kTensorMapBoxCols)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(row_stride_bytes), kTensorMapBoxCols * 2};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(kTensorMapBoxCols), static_cast<cuuint32_t>(box_rows),
                             static_cast<cuuint32_t>(panels)};
  return encode_tensor_map(base, 3, dims, strides, box, rows, cols);
}

}  // namespace dsv4::port
