// hipsim runtime, host side: the HIP host API subset of hipsim/include/hipsim/host_api.h on the sim executor
// (streams and events are kernels/port ones), kernel launches, the environment (DSV4_SIM_SEED,
// DSV4_SIM_ERROR_EXITCODE, DSV4_SIM_REPORT, DSV4_SIM_TIMEOUT) and the report printed at synchronising calls and at
// exit. Every call that orders work tells the cross-launch race check (stream_order.hpp) at issue time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
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
};
// When the event's latest record completed on the sim (host wall time), stamped by a stream op before the record.
struct __hipsim_event_times {
  std::uint64_t issued = 0, done = 0;
  std::chrono::steady_clock::time_point at;
};
struct __hipsim_event {
  port::Event e;
  std::shared_ptr<__hipsim_event_times> times = std::make_shared<__hipsim_event_times>();
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

void* __hipsim_kernargs(std::size_t bytes) { return allocate(bytes, "kernel arguments"); }

int __hipsim_enqueue(const char* name, void* kernel, __hipsim_uint3 grid, __hipsim_uint3 block, std::size_t lds,
                     hipStream_t stream, void (*invoke)(void*, void*), void* args, void (*destroy)(void*)) {
  ensure_setup();
  std::shared_ptr<void> held(args, [destroy](void* a) {
    destroy(a);
    release(a);
  });
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
  const std::uint64_t h = order::issue(key_of(stream), "kernel '" + std::string(name) + "' (launch " + std::to_string(id) + ")", id, name);
  sd::Executor::get().enqueue(ss, sd::Op{sd::Op::host_fn, nullptr, nullptr, [h] { order::executed(h); }, nullptr, 0});
  return hipSuccess;
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
  const hipError_t r = sync_all("hipDeviceSynchronize");
  order::host_waits_all();
  return r;
}

hipError_t hipMalloc(void** p, std::size_t bytes) {
  ensure_setup();
  *p = allocate(bytes, "hipMalloc");
  return *p ? hipSuccess : fail(hipErrorOutOfMemory, "hipMalloc of " + std::to_string(bytes) + " B failed");
}
hipError_t hipFree(void* p) {
  if (!p) return hipSuccess;
  const hipError_t r = sync_all("hipFree");
  order::host_waits_all();  // hipFree synchronises the device
  if (!release(p)) return fail(hipErrorInvalidDevicePointer, "hipFree of a pointer that is not a live hipMalloc allocation");
  return r;
}
hipError_t hipMallocAsync(void** p, std::size_t bytes, hipStream_t) { return hipMalloc(p, bytes); }
hipError_t hipFreeAsync(void* p, hipStream_t s) {
  if (!p) return hipSuccess;
  sd::Executor& ex = sd::Executor::get();
  ex.enqueue(sim_stream_of(s), sd::Op{sd::Op::host_fn, nullptr, nullptr, [p] { release(p); }, nullptr, 0});
  return hipSuccess;
}

hipError_t hipMemcpy(void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind) {
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
  const std::uint64_t h = memory_op(key_of(s), "hipMemcpyAsync", dst, src, bytes);
  sd::Executor::get().enqueue(sim_stream_of(s), sd::Op{sd::Op::host_fn, nullptr, nullptr, [=] {
                                std::memmove(dst, src, bytes);
                                order::executed(h);
                              }, nullptr, 0});
  return hipSuccess;
}
hipError_t hipMemset(void* dst, int value, std::size_t bytes) {
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
  const std::uint64_t h = memory_op(key_of(s), "hipMemsetAsync", dst, nullptr, bytes);
  sd::Executor::get().enqueue(sim_stream_of(s), sd::Op{sd::Op::host_fn, nullptr, nullptr, [=] {
                                std::memset(dst, value, bytes);
                                order::executed(h);
                              }, nullptr, 0});
  return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned flags) {
  ensure_setup();
  static order::StreamKey streams = 0;
  *s = new __hipsim_stream;
  (*s)->key = ++streams;
  order::add_stream((*s)->key, (flags & hipStreamNonBlocking) == 0);
  return hipSuccess;
}
hipError_t hipStreamCreate(hipStream_t* s) { return hipStreamCreateWithFlags(s, hipStreamDefault); }
hipError_t hipStreamDestroy(hipStream_t s) { delete s; return hipSuccess; }
hipError_t hipStreamSynchronize(hipStream_t s) {
  const hipError_t r = sync_all("hipStreamSynchronize");
  order::host_waits_stream(key_of(s));
  return r;
}
hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned) {
  if (!e) return fail(hipErrorInvalidResourceHandle, "hipStreamWaitEvent: null event");
  order::wait_event(key_of(s), e);
  stream_of(s).wait(e->e);
  return hipSuccess;
}
hipError_t hipEventCreate(hipEvent_t* e) { ensure_setup(); *e = new __hipsim_event; return hipSuccess; }
hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned) { return hipEventCreate(e); }
hipError_t hipEventDestroy(hipEvent_t e) {
  order::forget_event(e);
  delete e;
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) {
  if (!e) return fail(hipErrorInvalidResourceHandle, "hipEventRecord: null event");
  ensure_setup();
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

}  // extern "C"
