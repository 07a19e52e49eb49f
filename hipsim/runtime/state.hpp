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

struct Allocation {
  std::uintptr_t base = 0;
  std::size_t bytes = 0;
  bool live = false;
  const char* kind = "";  // "hipMalloc", "kernel arguments"
};
// Bytes after every allocation that belong to it but not to the user: an access there is reported, not a crash.
inline constexpr std::size_t kRedzone = 256;

void* allocate(std::size_t bytes, const char* kind);
bool release(void* p);  // false: not a live allocation
// The allocation whose [base, base + bytes + kRedzone) contains p (live or freed), or nullptr.
const Allocation* find_allocation(std::uintptr_t p);

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
