// hipsim runtime internals shared by its files: the device allocation registry (what global accesses are checked
// against), the once-per-process setup from the environment, and the report flush at synchronising calls.
// Invariant: one OS thread (the sim executor drives all fibers on the caller's thread).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "hipsim/include/hipsim/abi.h"

namespace dsv4::port::sim::detail {
struct BlockExec;
struct LdsArena;
class Executor;
}

namespace hipsim {

// What an allocation holds: the user's hipMalloc memory, a launch's kernel arguments, a file-scope variable.
enum class AllocKind { user_malloc, kernel_args, device_var };
const char* kind_name(AllocKind k);  // "hipMalloc", "kernel arguments", "__device__ variable"

struct Allocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  bool live = false;
  AllocKind kind = AllocKind::user_malloc;
  std::uint64_t serial = 0;  // hipMalloc allocations: 1, 2, ... in allocation order (0: the others)
  bool tracked = false;      // the user's memory (hipMalloc, __device__ variables): the race check records it
  std::string name;          // __device__ variables: the variable's name
  std::string describe() const;  // "hipMalloc allocation #3", "__device__ variable 'ws'", "kernel arguments allocation"
};
// The pass's description of a file-scope variable a kernel accesses (= hipsim/pass/hipsim_pass.cpp's kDeviceVar site).
struct DeviceVarSite {
  const char* name;
  std::uint64_t bytes;
  const void* addr;
};
// Bytes after every allocation that belong to it but not to the user: an access there is reported, not a crash.
inline constexpr std::size_t kRedzone = 256;

// Freed hipMalloc bytes (with redzones) kept mapped so that a use after hipFree is reported; beyond this the oldest
// freed blocks are returned to the host allocator (the newest freed block is always kept).
inline constexpr std::size_t kQuarantineBytes = std::size_t(256) << 20;

void* allocate(std::size_t bytes, AllocKind kind);
// A file-scope (`__device__`) variable, registered at the first access from a kernel (idempotent).
void register_device_var(const DeviceVarSite& s);
bool release(void* p);  // false: not a live hipMalloc or kernel-argument allocation
std::size_t quarantined_bytes();  // freed hipMalloc bytes still mapped (<= kQuarantineBytes but for the newest)
// The allocation whose [base, base + bytes + kRedzone) contains p (live or freed), or nullptr.
const Allocation* find_allocation(std::uintptr_t p);

// A finding of hipsim's own checks (cross-launch races, the watchdog), printed and written with the sim's report.
struct Finding {
  std::string kind, kernel;
  std::uint64_t launch = 0;
  std::string line;  // the whole report line, starting with the kind
};
void add_finding(Finding f);

void ensure_setup();       // options from DSV4_SIM_SEED / the cmake ARCH, exit hook (first runtime call)
std::uint64_t seed();
// Prints the findings since the last flush (with the seed) and returns whether there were any; exits with
// DSV4_SIM_ERROR_EXITCODE when set and there were.
bool flush_findings(const char* where);

// `__syncthreads` met while some waves of the block have returned, or a thread returning while others wait at one;
// reported when every thread still running has arrived (`leaving`: a thread about to return, counted as returned),
// once per block. The barrier then completes, as CDNA counts it (Options::barrier_skips_exited): on_thread_exit
// releases it when the last thread not waiting returns.
void report_exited_waves(dsv4::port::sim::detail::BlockExec& b, const std::source_location& loc, int leaving = -1);
void on_thread_exit(dsv4::port::sim::detail::BlockExec& b);

// The watchdog (DSV4_SIM_TIMEOUT, watchdog.cpp): a launch in which no thread returns for that long is stopped and
// reported with where every wave of its blocks in flight is. watchdog_tick runs in kernel threads at every checked
// access, barrier, fence and wave op (`loc`: the access's "file:line" or null); watchdog_arm when the host starts
// running queued work; watchdog_progress when a thread returns.
void watchdog_setup();
void watchdog_arm();
void watchdog_progress();
void watchdog_tick(const char* loc);
// The access checks of device.cpp, shared with the builtins that access memory themselves (lds_dma.cpp,
// buffer_ops.cpp). check_global: p must lie in a live device allocation (else global_out_of_range; outside every
// allocation the thread stops). array_at: the LDS array the window byte `abs` belongs to when no provenance is known.
void check_global(dsv4::port::sim::detail::Executor& ex, dsv4::port::sim::detail::BlockExec& b, std::uintptr_t p,
                  std::size_t n, bool write, const char* loc);
int array_at(dsv4::port::sim::detail::LdsArena& a, std::int64_t abs);
// LDS DMA (lds_dma.cpp): an LDS access by the current thread at window bytes [abs, abs + n) first meets the
// global_load_lds writes still in flight there; dma_wait(n) is s_waitcnt vmcnt(n) for the current thread.
void dma_before_lds_access(dsv4::port::sim::detail::BlockExec& b, std::int64_t abs, std::size_t n, bool write);
void dma_wait(int vmcnt);

}  // namespace hipsim
