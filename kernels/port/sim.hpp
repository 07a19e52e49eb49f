// Host-side control of the sim backend: options (arch profile, wave size, scheduler, seed, checks) and the report of
// violations it found. Only meaningful when DSV4_BACKEND_SIM; on other backends the functions exist but report
// nothing (sim_active() is false), so a test can GTEST_SKIP on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/port/arch.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::port::sim {

bool sim_active();  // true in a DSV4_BACKEND_SIM build

enum class Schedule {
  serial,  // block by block; inside a block each thread runs until it blocks (barrier / wave op), then the next
  random,  // seeded: several blocks (of all launches in flight) interleaved, preemption at every sync point
};

struct Options {
  Arch arch = Arch::gfx950;
  int wave_size = 0;                   // 0: the profile's (64 gfx9xx, 32 sm_90); 32 or 64 to override
  Schedule schedule = Schedule::serial;
  std::uint64_t seed = 0;              // random schedule seed; same seed, same run, bit for bit
  bool preempt_global = false;         // random: also preempt at global_load/global_store through the layer
  int max_blocks_in_flight = 4;        // random: blocks interleaved at once
  bool check_lds = true;               // bounds checks (always CDNA semantics: OOR write dropped, read 0)
  bool check_uninitialized = true;     // report reads of never-written LDS
  bool check_hazards = true;           // report same-address LDS access by two threads, one a write, no barrier
  bool fail_on_violation = false;      // a launch with any violation fails (Error at the next sync)
  bool wave_lockstep = false;          // LDS accesses of two lanes of one wave are ordered (CDNA lockstep: hipsim
                                       //   runs a block's lanes round-robin access by access; the random schedule
                                       //   then interleaves blocks only, each block's threads in FIFO order)
  bool barrier_skips_exited = false;   // __syncthreads waits for the threads still running (CDNA); false: for all
                                       //   (a barrier after a return is then a deadlock report)
  std::size_t stack_bytes = 64 * 1024; // per-fiber stack
  std::size_t max_violations = 1000;   // stored per report; further ones are only counted
};

// Replace the options; only while no work is in flight (it synchronises first). reset_options() restores defaults.
void set_options(const Options& o);
const Options& options();
void reset_options();

enum class ViolationKind {
  lds_out_of_range,       // access outside the LDS array it was made through (CDNA: outside the block's arena:
                          //   write dropped / read 0; inside it: performed, it corrupts a neighbour as hardware would)
  lds_uninitialized_read, // read of LDS never written in this block
  lds_hazard,             // two threads, same LDS byte, >= one write, no barrier between
  lds_capacity,           // static + dynamic LDS above the profile's capacity: the launch fails
  barrier_divergence,     // threads of a block wait at different __syncthreads sites
  wave_divergence,        // lanes of a wave at different wave ops, or some lanes never reach it
  deadlock,               // a barrier / wave op that can never complete; detail lists each thread's position
  kernel_exception,       // an exception escaped a kernel thread; the launch fails
  shuffle_source_inactive, // a shuffle read a lane that does not exist in the block (partial wave); returned 0
  global_out_of_range,    // hipsim: a global access outside every live allocation (past the end, after free, wild)
  cluster_lds,            // another cluster workgroup's LDS (port::cluster_lds) accessed without a port::cluster_sync
                          //   after a conflicting access, or after that workgroup exited: the launch fails
  lds_async_read_before_wait  // hipsim: LDS bytes a global_load_lds of another wave has not landed yet (no s_waitcnt
                              //   vmcnt / __syncthreads in that wave covers it) read or written: sees the old contents
};
std::string_view to_string(ViolationKind k);

struct Violation {
  ViolationKind kind;
  std::string kernel;
  std::uint64_t launch_id = 0;
  Dim3 block;
  Dim3 thread;
  bool has_position = true;        // false: found before any block ran (a rejected launch); block/thread unset
  std::string array;               // LDS array name ("" when not an LDS violation)
  std::int64_t offset = 0;         // byte offset of the access from the start of the array (may be negative)
  std::size_t size = 0;            // bytes accessed
  std::size_t array_bytes = 0;     // declared size of the array
  std::string detail;              // human text (positions for deadlocks, the other thread for hazards, ...)
  std::string to_string() const;
};

struct Report {
  std::vector<Violation> violations;  // first Options::max_violations
  std::size_t total = 0;              // including those not stored
  std::size_t count(ViolationKind k) const;
  std::vector<Violation> of_kind(ViolationKind k) const;
  std::string to_string() const;      // one line per violation
  bool empty() const { return total == 0; }
};

// The violations recorded since the last take_report() (call after a sync). take_report clears them.
const Report& report();
Report take_report();

// Statistics of the executor (for performance tests).
struct Stats {
  std::uint64_t launches = 0, blocks = 0, threads = 0, fiber_switches = 0, barriers = 0;
};
Stats stats();

}  // namespace dsv4::port::sim
