// hipsim runtime, host side: the HIP host API subset of hipsim/include/hipsim/host_api.h on the sim executor
// (streams and events are kernels/port ones), kernel launches, the environment (DSV4_SIM_SEED,
// DSV4_SIM_ERROR_EXITCODE, DSV4_SIM_REPORT, DSV4_SIM_TIMEOUT) and the report printed at synchronising calls and at
// exit. Every call that orders work tells the cross-launch race check (stream_order.hpp) at issue time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hipsim/include/hipsim/host_api.h"
#include "hipsim/runtime/state.hpp"
#include "hipsim/runtime/stream_order.hpp"
#include "kernels/backend/sim/sim_internal.hpp"
#include "kernels/port/detail/launch_log.hpp"
#undef warpSize  // sim_device.hpp's kernel-side name; here it is the hipDeviceProp_t field

namespace port = dsv4::port;
namespace sd = dsv4::port::sim::detail;

extern "C" {
__attribute__((weak)) extern const char __hipsim_arch[];
}

namespace {
// The arches a hipsim build may name (ARCH, cmake/HipSim.cmake's DSV4_HIPSIM_ARCHES): the executor profile its
// kernels run on (wave size, LDS capacity) and what hipGetDeviceProperties reports. gfx90a (MI200, CDNA2) runs on
// the gfx942 profile: 64-lane waves and 64 KiB LDS per workgroup as there (clang-22: "local memory (65537) exceeds
// limit (65536)" for gfx90a). CUs and GFXIP 9.0 from AMD's ROCm "GPU specifications" table (gpu-specs.rst): MI250X
// gfx90a, 220 CUs (110 per GCD, the device HIP sees), LDS 64 KiB; MI210 has 104.
struct SimArch {
  const char* name;
  port::Arch executor;
  int compute_units;
  int minor;  // hipDeviceProp_t major is 9 for all
};
constexpr SimArch kSimArches[] = {
    {"gfx950", port::Arch::gfx950, port::kGfx950.compute_units, 5},
    {"gfx942", port::Arch::gfx942, port::kGfx942.compute_units, 4},
    {"gfx90a", port::Arch::gfx942, 110, 0},
};
const SimArch* g_arch = &kSimArches[0];

const SimArch* find_sim_arch(std::string_view name) {
  for (const SimArch& a : kSimArches)
    if (name == a.name) return &a;
  return nullptr;
}
std::string sim_arch_names() {
  std::string s;
  for (const SimArch& a : kSimArches) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}
}  // namespace

struct __hipsim_stream {
  port::Stream s;
  hipsim::order::StreamKey key = 0;
  unsigned long long capture = 0;  // the capture this stream takes part in (0: none)
  std::vector<std::size_t> tail;   // while capturing: the nodes the stream's next node depends on
};
// When the event's latest record completed on the sim (host wall time), stamped by a stream op before the record.
struct __hipsim_event_times {
  std::uint64_t issued = 0, done = 0;
  std::chrono::steady_clock::time_point at;
};
struct __hipsim_event {
  port::Event e;
  std::shared_ptr<__hipsim_event_times> times = std::make_shared<__hipsim_event_times>();
  unsigned long long capture = 0;  // recorded in this capture (0: recorded outside any, or never)
  std::vector<std::size_t> nodes;  // the capturing stream's nodes at that record
};

// A captured operation: a kernel launch, a copy or a memset, after the nodes `deps` (indices of earlier nodes).
struct GraphNode {
  enum Kind { kernel, copy, set } kind = kernel;
  std::vector<std::size_t> deps;
  const char* name = "";  // a kernel's: the launch's static string
  void* fn = nullptr;
  __hipsim_uint3 grid{}, block{};
  std::size_t lds = 0;
  void (*invoke)(void*, void*) = nullptr;
  std::shared_ptr<void> args;  // the kernel's argument block, shared by every replay
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
  int value = 0;
};
struct __hipsim_graph {
  std::vector<GraphNode> nodes;
  unsigned long long capture = 0;
};
// An instantiated graph: its nodes, one race-check stream per node (the graph's internal order) and one that joins
// them all (what a later launch of the same exec is ordered after).
struct __hipsim_graph_exec {
  std::vector<GraphNode> nodes;
  std::vector<hipsim::order::StreamKey> keys;
  hipsim::order::StreamKey join = 0;
  std::vector<char> tokens;  // race-check events: node i done at [i], launch start at [n], exec done at [n + 1]
  unsigned serial = 0;
};

namespace hipsim {

namespace {
hipError_t g_last = hipSuccess;
std::uint64_t g_seed = 0;
bool g_random = false;
int g_exit_code = -1;
const char* g_report_file = nullptr;
bool g_exiting = false;
std::vector<Finding> g_findings;
order::StreamKey g_streams = 0;
order::StreamKey next_stream_key() { return ++g_streams; }

struct Capture {
  hipGraph_t graph = nullptr;
  hipStream_t origin = nullptr;
  hipStreamCaptureMode mode = hipStreamCaptureModeGlobal;
  bool invalidated = false;
  std::string why;  // what invalidated it
  std::vector<hipStream_t> streams;  // the origin first, then the streams that joined
};
std::map<unsigned long long, Capture> g_captures;  // the captures begun and not ended, by id
unsigned long long g_capture_ids = 0;
// The user's live graphs, graph execs, streams and events. The sets are never destroyed: a program that exits without
// destroying its handles leaves them reachable, as a device runtime keeps them until its context goes, so
// LeakSanitizer (asan preset) reports the program's own leaks, not these.
std::set<hipGraph_t>& g_graphs = *new std::set<hipGraph_t>;
std::set<hipGraphExec_t>& g_execs = *new std::set<hipGraphExec_t>;
std::set<const void*>& g_handles = *new std::set<const void*>;
std::size_t g_findings_total = 0;
constexpr std::size_t kMaxFindings = 1000;

hipError_t fail(hipError_t e, const std::string& why) {
  std::fprintf(stderr, "hipsim: %s\n", why.c_str());
  g_last = e;
  return e;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') { o += "\\n"; continue; }
    o += c;
  }
  return o;
}

void at_exit() {
  if (g_exiting) return;
  g_exiting = true;
  watchdog_arm();
  try {
    sd::Executor::get().synchronize_all();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hipsim: at exit: %s\n", e.what());
  }
  flush_findings("exit");
}

port::Stream& stream_of(hipStream_t s) { return s ? s->s : port::Stream::default_stream(); }
sd::SimStream* sim_stream_of(hipStream_t s) { return static_cast<sd::SimStream*>(stream_of(s).native()); }
order::StreamKey key_of(hipStream_t s) { return s ? s->key : 0; }

// Runs all queued work; a failed launch or a finding makes it an error.
hipError_t sync_all(const char* where) {
  ensure_setup();
  hipError_t r = hipSuccess;
  watchdog_arm();
  try {
    sd::Executor::get().synchronize_all();
  } catch (const std::exception& e) {
    r = fail(hipErrorLaunchFailure, e.what());
  }
  if (flush_findings(where) && r == hipSuccess) r = g_last = hipErrorLaunchFailure;
  return r;
}

bool device_range(const void* p, std::size_t n) {
  const Allocation* a = find_allocation(reinterpret_cast<std::uintptr_t>(p));
  return a && a->live && reinterpret_cast<std::uintptr_t>(p) + n <= a->base + a->bytes;
}

// A copy or memset as an operation of the race check: the bytes of tracked memory (hipMalloc allocations,
// __device__ variables) it reads and writes.
std::uint64_t memory_op(order::StreamKey s, const char* name, const void* dst, const void* src, std::size_t n) {
  const std::uint64_t h = order::issue(s, name, 0);
  auto user = [n](const void* p) {
    const Allocation* a = find_allocation(reinterpret_cast<std::uintptr_t>(p));
    return p && a && a->tracked && device_range(p, n);
  };
  if (user(dst)) order::touch(h, reinterpret_cast<std::uintptr_t>(dst), n, order::Touch::write, nullptr);
  if (src && user(src)) order::touch(h, reinterpret_cast<std::uintptr_t>(src), n, order::Touch::read, nullptr);
  return h;
}

// A kernel launch on the sim stream of `stream`, ordered for the race check as an operation on `key`.
hipError_t enqueue_kernel(const char* name, void* kernel, __hipsim_uint3 grid, __hipsim_uint3 block,
                          std::size_t lds, hipStream_t stream, order::StreamKey key, void (*invoke)(void*, void*),
                          std::shared_ptr<void> held) {
  port::LaunchConfig cfg;
  cfg.grid = port::Dim3(grid.x, grid.y, grid.z);
  cfg.block = port::Dim3(block.x, block.y, block.z);
  cfg.dynamic_lds_bytes = lds;
  cfg.stream = stream ? &stream->s : nullptr;
  cfg.kernel_name = name;
  try {
    sd::enqueue_launch(cfg, [kernel, invoke, held] {
      invoke(kernel, held.get());
      dma_wait(0);  // LDS DMA still in flight lands (the wave ends after its memory operations)
      on_thread_exit(*sd::g_current->block);
    });
  } catch (const std::exception& e) {
    return fail(hipErrorInvalidValue, e.what());
  }
  sd::SimStream* ss = sim_stream_of(stream);
  const std::uint64_t id = ss->queue.back().launch->id;
  const std::uint64_t h = order::issue(key, "kernel '" + std::string(name) + "' (launch " + std::to_string(id) + ")", id, name);
  sd::Executor::get().enqueue(ss, sd::Op{sd::Op::host_fn, nullptr, nullptr, [h] { order::executed(h); }, nullptr, 0});
  return hipSuccess;
}
void enqueue_copy(hipStream_t s, order::StreamKey key, void* dst, const void* src, std::size_t bytes) {
  const std::uint64_t h = memory_op(key, "hipMemcpyAsync", dst, src, bytes);
  sd::Executor::get().enqueue(sim_stream_of(s), sd::Op{sd::Op::host_fn, nullptr, nullptr, [=] {
                                std::memmove(dst, src, bytes);
                                order::executed(h);
                              }, nullptr, 0});
}
void enqueue_set(hipStream_t s, order::StreamKey key, void* dst, int value, std::size_t bytes) {
  const std::uint64_t h = memory_op(key, "hipMemsetAsync", dst, nullptr, bytes);
  sd::Executor::get().enqueue(sim_stream_of(s), sd::Op{sd::Op::host_fn, nullptr, nullptr, [=] {
                                std::memset(dst, value, bytes);
                                order::executed(h);
                              }, nullptr, 0});
}

std::string capture_name(unsigned long long id) {
  const Capture& c = g_captures.at(id);
  return "capture " + std::to_string(id) + " begun on " + order::stream_name(key_of(c.origin));
}

// A node issued on a stream taking part in a capture: it depends on the stream's tail and becomes it.
hipError_t capture_node(hipStream_t s, GraphNode n, const char* what) {
  Capture& c = g_captures.at(s->capture);
  if (c.invalidated)
    return fail(hipErrorStreamCaptureInvalidated, std::string(what) + " on " + order::stream_name(s->key) + " in " +
                capture_name(s->capture) + ", which was invalidated (" + c.why + ")");
  n.deps = s->tail;
  c.graph->nodes.push_back(std::move(n));
  s->tail = {c.graph->nodes.size() - 1};
  return hipSuccess;
}

// A call that is not allowed while a capture is under way (HIP's "unsafe" calls in global and thread-local mode;
// in relaxed mode only those that would wait for a capturing stream: `waits_on` that stream, or every stream when
// `device_wide`). It invalidates the capture and returns hipErrorStreamCaptureUnsupported; hipSuccess when allowed.
hipError_t capture_forbids(const char* call, hipStream_t waits_on, bool device_wide) {
  for (auto& [id, c] : g_captures) {
    const bool waits = device_wide || (waits_on && waits_on->capture == id);
    if (c.mode == hipStreamCaptureModeRelaxed && !waits) continue;
    const std::string why = std::string(call) + " during " + capture_name(id) + " (mode " +
                            (c.mode == hipStreamCaptureModeGlobal ? "global" : c.mode == hipStreamCaptureModeThreadLocal
                                                                                   ? "thread-local" : "relaxed") + ")";
    if (!c.invalidated) c.why = why;
    c.invalidated = true;
    return fail(hipErrorStreamCaptureUnsupported, why + ": not allowed while a stream captures; the capture is "
                                                  "invalidated (hipErrorStreamCaptureUnsupported)");
  }
  return hipSuccess;
}
}  // namespace

void add_finding(Finding f) {
  ++g_findings_total;
  if (g_findings.size() < kMaxFindings) g_findings.push_back(std::move(f));
}

std::uint64_t seed() { return g_seed; }

void ensure_setup() {
  static bool done = false;
  if (done) return;
  done = true;
  port::sim::Options o;
  if (&__hipsim_arch != nullptr) {
    if (const SimArch* a = find_sim_arch(__hipsim_arch)) g_arch = a;
    else fail(hipErrorNotSupported, std::string("unknown ARCH '") + __hipsim_arch + "' (" + sim_arch_names() + "); using gfx950");
  }
  if (const char* s = std::getenv("DSV4_SIM_SEED")) {
    g_random = true;
    g_seed = std::strtoull(s, nullptr, 0);
    o.schedule = port::sim::Schedule::random;
    o.seed = g_seed;
  }
  if (const char* s = std::getenv("DSV4_SIM_ERROR_EXITCODE")) g_exit_code = std::atoi(s);
  g_report_file = std::getenv("DSV4_SIM_REPORT");
  watchdog_setup();
  o.arch = g_arch->executor;
  o.wave_lockstep = true;
  o.barrier_skips_exited = true;
  port::sim::set_options(o);
  std::atexit(at_exit);
}

bool flush_findings(const char* where) {
  port::sim::Report r = port::sim::take_report();
  std::vector<Finding> own = std::move(g_findings);
  const std::size_t own_total = g_findings_total;
  g_findings.clear();
  g_findings_total = 0;
  if (r.empty() && own_total == 0) return false;
  const std::string sched = g_random ? "random schedule, DSV4_SIM_SEED=" + std::to_string(g_seed)
                                     : std::string("serial schedule (DSV4_SIM_SEED=N picks a random one)");
  std::string lines;
  for (const Finding& f : own) lines += f.line + "\n";
  if (own_total > own.size()) lines += "... and " + std::to_string(own_total - own.size()) + " more\n";
  std::fprintf(stderr, "hipsim: %zu finding(s) at %s (%s, arch %s)\n%s%s", r.total + own_total, where, sched.c_str(),
               g_arch->name, r.to_string().c_str(), lines.c_str());
  if (g_report_file) {
    if (FILE* f = std::fopen(g_report_file, "a")) {
      for (const Finding& o : own)
        std::fprintf(f, "{\"kind\":\"%s\",\"kernel\":\"%s\",\"launch\":%llu,\"detail\":\"%s\",\"seed\":%llu,"
                     "\"schedule\":\"%s\"}\n",
                     o.kind.c_str(), json_escape(o.kernel).c_str(), static_cast<unsigned long long>(o.launch),
                     json_escape(o.line).c_str(), static_cast<unsigned long long>(g_seed), g_random ? "random" : "serial");
      for (const port::sim::Violation& v : r.violations)
        std::fprintf(f, "{\"kind\":\"%s\",\"kernel\":\"%s\",\"block\":\"%s\",\"thread\":\"%s\",\"array\":\"%s\","
                     "\"offset\":%lld,\"size\":%zu,\"array_bytes\":%zu,\"detail\":\"%s\",\"seed\":%llu,"
                     "\"schedule\":\"%s\"}\n",
                     std::string(port::sim::to_string(v.kind)).c_str(), json_escape(v.kernel).c_str(),
                     port::to_string(v.block).c_str(), port::to_string(v.thread).c_str(),
                     json_escape(v.array).c_str(), static_cast<long long>(v.offset), v.size, v.array_bytes,
                     json_escape(v.detail).c_str(), static_cast<unsigned long long>(g_seed),
                     g_random ? "random" : "serial");
      std::fclose(f);
    }
  }
  std::fflush(stderr);
  if (g_exit_code >= 0) std::_Exit(g_exit_code);
  return true;
}

namespace {
std::map<const sd::BlockExec*, std::uint32_t>& exited_reported() {
  static std::map<const sd::BlockExec*, std::uint32_t> m;
  return m;
}
int exited_waves(const sd::BlockExec& b, int leaving) {
  int n = 0;
  for (int w = 0; w < b.nwaves; ++w) {
    bool all_done = true;
    for (int l = 0; l < b.wave_lanes(w); ++l) {
      const int i = w * b.wave_size + l;
      all_done &= i == leaving || b.threads[std::size_t(i)].state == sd::ThreadState::done;
    }
    n += all_done;
  }
  return n;
}
}  // namespace

// Reported when the hardware barrier would complete: every thread still running has arrived.
void report_exited_waves(sd::BlockExec& b, const std::source_location& loc, int leaving) {
  auto& rep = exited_reported();
  if (auto it = rep.find(&b); it != rep.end() && it->second == b.epoch_base) return;
  rep[&b] = b.epoch_base;
  sd::Executor& ex = sd::Executor::get();
  const int returned = b.nthreads - b.live + (leaving >= 0);
  port::sim::Violation v = ex.make_violation(port::sim::ViolationKind::barrier_divergence, &b, &ex.current_thread());
  v.detail = "__syncthreads at " + std::string(loc.file_name()) + ":" + std::to_string(loc.line()) + " reached after " +
             std::to_string(returned) + " thread(s) (" + std::to_string(exited_waves(b, leaving)) +
             " whole wave(s)) of the block returned: CDNA does not wait for returned waves, so the barrier orders "
             "nothing with them";
  ex.add_violation(v);
}

void on_thread_exit(sd::BlockExec& b) {
  watchdog_progress();
  if (b.barrier_arrived == 0 || b.barrier_arrived != b.live - 1) return;  // live still counts this thread
  const sd::SimThread* waiter = nullptr;
  for (const sd::SimThread& t : b.threads)
    if (t.state == sd::ThreadState::at_barrier) { waiter = &t; break; }
  const std::source_location loc = waiter ? waiter->loc : b.barrier_loc;
  report_exited_waves(b, loc, sd::g_current->linear);
  if (sd::Executor::get().options.barrier_skips_exited) sd::release_barrier(b, loc);  // as CDNA counts it
}

}  // namespace hipsim

using namespace hipsim;

extern "C" {

void* __hipsim_kernargs(std::size_t bytes) { return allocate(bytes, AllocKind::kernel_args); }

int __hipsim_enqueue(const char* name, void* kernel, __hipsim_uint3 grid, __hipsim_uint3 block, std::size_t lds,
                     hipStream_t stream, void (*invoke)(void*, void*), void* args, void (*destroy)(void*)) {
  ensure_setup();
  std::shared_ptr<void> held(args, [destroy](void* a) {
    destroy(a);
    release(a);
  });
  if (stream && stream->capture) {
    GraphNode n;
    n.kind = GraphNode::kernel;
    n.name = name;
    n.fn = kernel;
    n.grid = grid;
    n.block = block;
    n.lds = lds;
    n.invoke = invoke;
    n.args = std::move(held);
    return capture_node(stream, std::move(n), "a kernel launch");
  }
  return enqueue_kernel(name, kernel, grid, block, lds, stream, key_of(stream), invoke, std::move(held));
}

const char* hipGetErrorName(hipError_t e) {
  switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorInvalidDevicePointer: return "hipErrorInvalidDevicePointer";
    case hipErrorInvalidResourceHandle: return "hipErrorInvalidResourceHandle";
    case hipErrorNotReady: return "hipErrorNotReady";
    case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorIllegalState: return "hipErrorIllegalState";
    case hipErrorStreamCaptureUnsupported: return "hipErrorStreamCaptureUnsupported";
    case hipErrorStreamCaptureInvalidated: return "hipErrorStreamCaptureInvalidated";
    case hipErrorStreamCaptureMerge: return "hipErrorStreamCaptureMerge";
    case hipErrorStreamCaptureUnmatched: return "hipErrorStreamCaptureUnmatched";
    case hipErrorStreamCaptureUnjoined: return "hipErrorStreamCaptureUnjoined";
    case hipErrorStreamCaptureIsolation: return "hipErrorStreamCaptureIsolation";
    case hipErrorStreamCaptureImplicit: return "hipErrorStreamCaptureImplicit";
    default: return "hipErrorUnknown";
  }
}
const char* hipGetErrorString(hipError_t e) {
  switch (e) {
    case hipSuccess: return "no error";
    case hipErrorLaunchFailure: return "unspecified launch failure (hipsim: a check found a problem; see its report)";
    default: return hipGetErrorName(e);
  }
}
hipError_t hipGetLastError() {
  const hipError_t e = g_last;
  g_last = hipSuccess;
  return e;
}
hipError_t hipPeekAtLastError() { return g_last; }
hipError_t hipGetDeviceCount(int* n) { *n = 1; return hipSuccess; }
hipError_t hipGetDevice(int* d) { *d = 0; return hipSuccess; }
hipError_t hipSetDevice(int d) { return d == 0 ? hipSuccess : fail(hipErrorInvalidValue, "hipSetDevice: the sim has device 0 only"); }

hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  ensure_setup();
  if (device != 0) return fail(hipErrorInvalidValue, "hipGetDeviceProperties: the sim has device 0 only");
  const port::ArchProfile& a = *sd::Executor::get().profile;
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "dsv4check sim (%s)", g_arch->name);
  std::snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s", g_arch->name);
  p->totalGlobalMem = std::size_t(64) << 30;
  p->sharedMemPerBlock = a.lds_bytes_per_block;
  p->maxSharedMemoryPerMultiProcessor = a.lds_bytes_per_block;
  p->warpSize = a.wave_size;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
  p->maxGridSize[0] = p->maxGridSize[1] = p->maxGridSize[2] = 0x7FFFFFFF;
  p->multiProcessorCount = g_arch->compute_units;
  p->major = 9;
  p->minor = g_arch->minor;
  return hipSuccess;
}

hipError_t hipDeviceSynchronize() {
  if (hipError_t e = capture_forbids("hipDeviceSynchronize", nullptr, true)) return e;
  const hipError_t r = sync_all("hipDeviceSynchronize");
  order::host_waits_all();
  return r;
}

hipError_t hipMalloc(void** p, std::size_t bytes) {
  ensure_setup();
  *p = allocate(bytes, AllocKind::user_malloc);
  return *p ? hipSuccess : fail(hipErrorOutOfMemory, "hipMalloc of " + std::to_string(bytes) + " B failed");
}
hipError_t hipFree(void* p) {
  if (!p) return hipSuccess;
  if (hipError_t e = capture_forbids("hipFree", nullptr, false)) return e;
  const hipError_t r = sync_all("hipFree");
  order::host_waits_all();  // hipFree synchronises the device
  if (!release(p)) return fail(hipErrorInvalidDevicePointer, "hipFree of a pointer that is not a live hipMalloc allocation");
  return r;
}
hipError_t hipMallocAsync(void** p, std::size_t bytes, hipStream_t s) {
  if (s && s->capture) return fail(hipErrorStreamCaptureUnsupported, "hipMallocAsync during stream capture: memory "
                                   "allocation nodes are not supported on the sim (hipErrorStreamCaptureUnsupported)");
  return hipMalloc(p, bytes);
}
hipError_t hipFreeAsync(void* p, hipStream_t s) {
  if (!p) return hipSuccess;
  if (s && s->capture) return fail(hipErrorStreamCaptureUnsupported, "hipFreeAsync during stream capture: memory "
                                   "free nodes are not supported on the sim (hipErrorStreamCaptureUnsupported)");
  sd::Executor& ex = sd::Executor::get();
  ex.enqueue(sim_stream_of(s), sd::Op{sd::Op::host_fn, nullptr, nullptr, [p] { release(p); }, nullptr, 0});
  return hipSuccess;
}

hipError_t hipMemcpy(void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind) {
  if (hipError_t e = capture_forbids("hipMemcpy", nullptr, false)) return e;
  hipError_t r = sync_all("hipMemcpy");
  if ((kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToDevice) && !device_range(dst, bytes))
    return fail(hipErrorInvalidValue, "hipMemcpy: destination is not " + std::to_string(bytes) + " B of a live device allocation");
  if ((kind == hipMemcpyDeviceToHost || kind == hipMemcpyDeviceToDevice) && !device_range(src, bytes))
    return fail(hipErrorInvalidValue, "hipMemcpy: source is not " + std::to_string(bytes) + " B of a live device allocation");
  // On the null stream, which waits for the blocking streams; the host waits for it.
  const std::uint64_t h = memory_op(0, "hipMemcpy", dst, src, bytes);
  std::memmove(dst, src, bytes);
  order::executed(h);
  order::host_waits_stream(0);
  if (flush_findings("hipMemcpy") && r == hipSuccess) r = g_last = hipErrorLaunchFailure;
  return r;
}
hipError_t hipMemcpyAsync(void* dst, const void* src, std::size_t bytes, hipMemcpyKind, hipStream_t s) {
  ensure_setup();
  if (s && s->capture) {
    GraphNode n;
    n.kind = GraphNode::copy;
    n.name = "hipMemcpyAsync";
    n.dst = dst;
    n.src = src;
    n.bytes = bytes;
    return capture_node(s, std::move(n), "hipMemcpyAsync");
  }
  enqueue_copy(s, key_of(s), dst, src, bytes);
  return hipSuccess;
}
hipError_t hipMemset(void* dst, int value, std::size_t bytes) {
  if (hipError_t e = capture_forbids("hipMemset", nullptr, false)) return e;
  hipError_t r = sync_all("hipMemset");
  if (!device_range(dst, bytes))
    return fail(hipErrorInvalidValue, "hipMemset: not " + std::to_string(bytes) + " B of a live device allocation");
  const std::uint64_t h = memory_op(0, "hipMemset", dst, nullptr, bytes);
  std::memset(dst, value, bytes);
  order::executed(h);
  order::host_waits_stream(0);
  if (flush_findings("hipMemset") && r == hipSuccess) r = g_last = hipErrorLaunchFailure;
  return r;
}
hipError_t hipMemsetAsync(void* dst, int value, std::size_t bytes, hipStream_t s) {
  ensure_setup();
  if (s && s->capture) {
    GraphNode n;
    n.kind = GraphNode::set;
    n.name = "hipMemsetAsync";
    n.dst = dst;
    n.value = value;
    n.bytes = bytes;
    return capture_node(s, std::move(n), "hipMemsetAsync");
  }
  enqueue_set(s, key_of(s), dst, value, bytes);
  return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned flags) {
  ensure_setup();
  *s = new __hipsim_stream;
  g_handles.insert(*s);
  (*s)->key = next_stream_key();
  static unsigned user_streams = 0;  // the user's streams are named in creation order, whatever the graphs took
  if (++user_streams != (*s)->key) order::name_stream((*s)->key, "stream " + std::to_string(user_streams));
  order::add_stream((*s)->key, (flags & hipStreamNonBlocking) == 0);
  return hipSuccess;
}
hipError_t hipStreamCreate(hipStream_t* s) { return hipStreamCreateWithFlags(s, hipStreamDefault); }
hipError_t hipStreamDestroy(hipStream_t s) {
  if (s && s->capture) return fail(hipErrorStreamCaptureUnsupported, "hipStreamDestroy of a stream in " + capture_name(s->capture));
  g_handles.erase(s);
  delete s;
  return hipSuccess;
}
hipError_t hipStreamSynchronize(hipStream_t s) {
  if (hipError_t e = capture_forbids("hipStreamSynchronize", s, false)) return e;
  const hipError_t r = sync_all("hipStreamSynchronize");
  order::host_waits_stream(key_of(s));
  return r;
}
hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned) {
  if (!e) return fail(hipErrorInvalidResourceHandle, "hipStreamWaitEvent: null event");
  if (e->capture && g_captures.count(e->capture)) {  // an event recorded in a capture: s joins it (a fork) or takes the event's nodes (a join)
    if (!s) return fail(hipErrorStreamCaptureImplicit, "hipStreamWaitEvent: the null stream cannot join " + capture_name(e->capture));
    if (s->capture && s->capture != e->capture)
      return fail(hipErrorStreamCaptureMerge, "hipStreamWaitEvent: " + order::stream_name(s->key) + " in " +
                  capture_name(s->capture) + " waits on an event of " + capture_name(e->capture));
    if (!s->capture) {
      s->capture = e->capture;
      s->tail.clear();
      g_captures.at(e->capture).streams.push_back(s);
    }
    for (std::size_t n : e->nodes)
      if (std::find(s->tail.begin(), s->tail.end(), n) == s->tail.end()) s->tail.push_back(n);
    return hipSuccess;
  }
  if (s && s->capture)
    return fail(hipErrorStreamCaptureIsolation, "hipStreamWaitEvent: " + order::stream_name(s->key) + " in " +
                capture_name(s->capture) + " waits on an event recorded outside the capture");
  order::wait_event(key_of(s), e);
  stream_of(s).wait(e->e);
  return hipSuccess;
}
hipError_t hipEventCreate(hipEvent_t* e) {
  ensure_setup();
  *e = new __hipsim_event;
  g_handles.insert(*e);
  return hipSuccess;
}
hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned) { return hipEventCreate(e); }
hipError_t hipEventDestroy(hipEvent_t e) {
  order::forget_event(e);
  g_handles.erase(e);
  delete e;
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) {
  if (!e) return fail(hipErrorInvalidResourceHandle, "hipEventRecord: null event");
  ensure_setup();
  if (s && s->capture) {  // a dependency inside the graph, no node of its own
    e->capture = s->capture;
    e->nodes = s->tail;
    return hipSuccess;
  }
  e->capture = 0;
  e->nodes.clear();
  order::record_event(e, key_of(s));
  const std::uint64_t n = ++e->times->issued;
  sd::Executor::get().enqueue(sim_stream_of(s), sd::Op{sd::Op::host_fn, nullptr, nullptr, [t = e->times, n] {
                                t->at = std::chrono::steady_clock::now();
                                t->done = std::max(t->done, n);
                              }, nullptr, 0});
  e->e.record(stream_of(s));
  return hipSuccess;
}
hipError_t hipEventSynchronize(hipEvent_t e) {
  if (e && e->capture && g_captures.count(e->capture))
    return fail(hipErrorStreamCaptureUnsupported, "hipEventSynchronize of an event recorded in " + capture_name(e->capture));
  if (hipError_t r = capture_forbids("hipEventSynchronize", nullptr, false)) return r;
  const hipError_t r = sync_all("hipEventSynchronize");
  order::host_waits_event(e);
  return r;
}
// Host wall time on the sim between the two events' latest records completing (the sim's time, not a GPU's).
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  if (!ms) return fail(hipErrorInvalidValue, "hipEventElapsedTime: null result pointer");
  if (!start || !stop) return fail(hipErrorInvalidResourceHandle, "hipEventElapsedTime: null event");
  if (!start->times->issued || !stop->times->issued)
    return fail(hipErrorInvalidResourceHandle, "hipEventElapsedTime: an event was never recorded");
  if (start->times->done < start->times->issued || stop->times->done < stop->times->issued)
    return hipErrorNotReady;  // not a failure: synchronise first (HIP's rule)
  *ms = std::chrono::duration<float, std::milli>(stop->times->at - start->times->at).count();
  return hipSuccess;
}


hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode mode) {
  ensure_setup();
  if (!s) return fail(hipErrorStreamCaptureUnsupported, "hipStreamBeginCapture: the null stream cannot be captured");
  if (mode != hipStreamCaptureModeGlobal && mode != hipStreamCaptureModeThreadLocal && mode != hipStreamCaptureModeRelaxed)
    return fail(hipErrorInvalidValue, "hipStreamBeginCapture: unknown capture mode " + std::to_string(int(mode)));
  if (s->capture) return fail(hipErrorIllegalState, "hipStreamBeginCapture: " + order::stream_name(s->key) +
                              " is already in " + capture_name(s->capture));
  const unsigned long long id = ++g_capture_ids;
  Capture& c = g_captures[id];
  c.graph = new __hipsim_graph;
  c.graph->capture = id;
  g_graphs.insert(c.graph);
  c.origin = s;
  c.mode = mode;
  c.streams = {s};
  s->capture = id;
  s->tail.clear();
  return hipSuccess;
}

hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t* graph) {
  if (!graph) return fail(hipErrorInvalidValue, "hipStreamEndCapture: null graph pointer");
  *graph = nullptr;
  if (!s || !s->capture) return fail(hipErrorIllegalState, "hipStreamEndCapture: " + order::stream_name(key_of(s)) + " is not capturing");
  const unsigned long long id = s->capture;
  Capture& c = g_captures.at(id);
  if (c.origin != s)
    return fail(hipErrorStreamCaptureUnmatched, "hipStreamEndCapture on " + order::stream_name(s->key) + ", which joined " +
                capture_name(id) + ": end it on the stream that began it");
  // Every stream that joined must have been joined back: its last nodes are ancestors of the origin's tail.
  std::vector<char> before(c.graph->nodes.size(), 0);
  std::vector<std::size_t> todo = s->tail;
  while (!todo.empty()) {
    const std::size_t n = todo.back();
    todo.pop_back();
    if (before[n]) continue;
    before[n] = 1;
    for (std::size_t d : c.graph->nodes[n].deps) todo.push_back(d);
  }
  std::string unjoined;
  for (hipStream_t o : c.streams)
    for (std::size_t n : o->tail)
      if (!before[n]) {
        unjoined = order::stream_name(o->key) + " (its node " + std::to_string(n) + ", " + std::string(c.graph->nodes[n].name) + ")";
        break;
      }
  const bool invalidated = c.invalidated;
  const std::string why = c.why;
  hipGraph_t g = c.graph;
  for (hipStream_t o : c.streams) {
    o->capture = 0;
    o->tail.clear();
  }
  g_captures.erase(id);
  if (invalidated || !unjoined.empty()) {
    g_graphs.erase(g);
    delete g;
    if (invalidated)
      return fail(hipErrorStreamCaptureInvalidated, "hipStreamEndCapture: capture " + std::to_string(id) +
                  " was invalidated by " + why + "; no graph");
    return fail(hipErrorStreamCaptureUnjoined, "hipStreamEndCapture: capture " + std::to_string(id) + ": " + unjoined +
                " forked from the capture and was never joined back (record an event there and wait on it on the "
                "capturing stream); no graph");
  }
  *graph = g;
  return hipSuccess;
}

hipError_t hipStreamGetCaptureInfo(hipStream_t s, hipStreamCaptureStatus* status, unsigned long long* id) {
  if (!status) return fail(hipErrorInvalidValue, "hipStreamGetCaptureInfo: null status pointer");
  *status = hipStreamCaptureStatusNone;
  if (s && s->capture) {
    *status = g_captures.at(s->capture).invalidated ? hipStreamCaptureStatusInvalidated : hipStreamCaptureStatusActive;
    if (id) *id = s->capture;
  }
  return hipSuccess;
}
hipError_t hipStreamIsCapturing(hipStream_t s, hipStreamCaptureStatus* status) {
  return hipStreamGetCaptureInfo(s, status, nullptr);
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* exec, hipGraph_t graph, unsigned long long) {
  if (!exec) return fail(hipErrorInvalidValue, "hipGraphInstantiate: null exec pointer");
  *exec = nullptr;
  if (!graph) return fail(hipErrorInvalidValue, "hipGraphInstantiate: null graph (did hipStreamEndCapture succeed?)");
  if (!g_graphs.count(graph)) return fail(hipErrorInvalidValue, "hipGraphInstantiate: not a live graph (destroyed, or "
                                          "never returned by hipStreamEndCapture)");
  for (const auto& [id, c] : g_captures)
    if (c.graph == graph) return fail(hipErrorInvalidValue, "hipGraphInstantiate: the graph of " + capture_name(id) +
                                      ", whose capture was never ended (hipStreamEndCapture)");
  static unsigned serials = 0;
  auto* x = new __hipsim_graph_exec;
  x->nodes = graph->nodes;
  x->serial = ++serials;
  for (std::size_t i = 0; i < x->nodes.size(); ++i) {
    x->keys.push_back(next_stream_key());
    order::add_stream(x->keys.back(), false);
    order::name_stream(x->keys.back(), "graph exec " + std::to_string(x->serial) + " node " + std::to_string(i));
  }
  x->join = next_stream_key();
  order::add_stream(x->join, false);
  order::name_stream(x->join, "graph exec " + std::to_string(x->serial));
  x->tokens.resize(x->nodes.size() + 2);
  g_execs.insert(x);
  *exec = x;
  return hipSuccess;
}
hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, hipGraphNode_t* error_node, char* log,
                               std::size_t log_bytes) {
  if (error_node) *error_node = nullptr;
  if (log && log_bytes) log[0] = 0;
  return hipGraphInstantiateWithFlags(exec, graph, 0);
}

// Each node runs on s in node order (a topological order); for the race check it is an operation on its own stream
// that waits for the launch's start on s, the previous launch of the exec and its dependencies; s waits for all.
hipError_t hipGraphLaunch(hipGraphExec_t x, hipStream_t s) {
  ensure_setup();
  if (!x || !g_execs.count(x)) return fail(hipErrorInvalidValue, "hipGraphLaunch: not a live graph exec (null, "
                                           "destroyed, or never returned by hipGraphInstantiate)");
  if (s && s->capture) return fail(hipErrorStreamCaptureUnsupported, "hipGraphLaunch into " + capture_name(s->capture) +
                                   ": a graph inside a capture is not supported on the sim");
  const std::size_t n = x->nodes.size();
  const void* start = &x->tokens[n];
  const void* done = &x->tokens[n + 1];
  order::record_event(start, key_of(s));
  for (std::size_t i = 0; i < n; ++i) {
    const GraphNode& g = x->nodes[i];
    const order::StreamKey k = x->keys[i];
    order::wait_event(k, start);
    order::wait_event(k, done);
    for (std::size_t d : g.deps) order::wait_event(k, &x->tokens[d]);
    if (g.kind == GraphNode::kernel) {
      if (hipError_t e = enqueue_kernel(g.name, g.fn, g.grid, g.block, g.lds, s, k, g.invoke, g.args)) return e;
    } else if (g.kind == GraphNode::copy) {
      enqueue_copy(s, k, g.dst, g.src, g.bytes);
    } else {
      enqueue_set(s, k, g.dst, g.value, g.bytes);
    }
    order::record_event(&x->tokens[i], k);
  }
  for (std::size_t i = 0; i < n; ++i) order::wait_event(x->join, &x->tokens[i]);
  order::wait_event(x->join, start);
  order::record_event(done, x->join);
  order::wait_event(key_of(s), done);
  return hipSuccess;
}

hipError_t hipGraphExecDestroy(hipGraphExec_t x) {
  if (!x || !g_execs.erase(x)) return fail(hipErrorInvalidValue, "hipGraphExecDestroy: not a live graph exec");
  for (const char& t : x->tokens) order::forget_event(&t);
  delete x;  // the argument blocks live on while a queued replay holds them
  return hipSuccess;
}
hipError_t hipGraphDestroy(hipGraph_t g) {
  if (!g || !g_graphs.count(g)) return fail(hipErrorInvalidValue, "hipGraphDestroy: not a live graph");
  for (const auto& [id, c] : g_captures)
    if (c.graph == g) return fail(hipErrorIllegalState, "hipGraphDestroy: the graph of " + capture_name(id) + ", still capturing");
  g_graphs.erase(g);
  delete g;
  return hipSuccess;
}

}  // extern "C"
