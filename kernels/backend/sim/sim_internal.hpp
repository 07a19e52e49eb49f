// sim backend internals: the executor's state (streams, launches, blocks, fiber threads, LDS arenas) shared by the
// files of kernels/backend/sim. Invariants: one OS thread drives everything; a BlockExec in flight always has a
// ready thread or is resolved (finished, or reported stuck and aborted) before the scheduler picks again.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <random>
#include <source_location>
#include <string>
#include <vector>

#include "kernels/backend/sim/fiber_sanitizer.hpp"
#include "kernels/backend/sim/happens_before.hpp"
#include "kernels/port/detail/sim_device.hpp"
#include "kernels/port/sim.hpp"

namespace dsv4::port::sim::detail {

namespace ctx = boost::context;

// Fixed-size fiber stacks with a guard page, reused across blocks and launches.
class StackPool {
 public:
  explicit StackPool(std::size_t bytes);
  ~StackPool();
  ctx::stack_context get();
  void put(ctx::stack_context& sc) noexcept;
  std::size_t stack_bytes() const { return bytes_; }

 private:
  std::size_t bytes_, page_;
  std::vector<void*> free_;     // mapping bases
  std::vector<void*> all_;
};

struct PooledStack {
  StackPool* pool;
  FiberSanitizer* san;  // told the stack's bounds
  ctx::stack_context allocate() {
    ctx::stack_context sc = pool->get();
    san->set_stack(sc);
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept { pool->put(sc); }
};

struct LaunchSpec {
  LaunchConfig cfg;        // kernel_name points into `name`
  std::string name;
  std::function<void()> body;
};

struct SimStream;
struct LaunchExec {
  std::shared_ptr<const LaunchSpec> spec;
  std::uint64_t id = 0;
  SimStream* stream = nullptr;
  std::size_t total_blocks = 0, next_block = 0, blocks_done = 0;
  int in_flight = 0;
  bool failed = false;
  std::string error;
};

struct CaptureSession;

struct SimEvent {
  std::uint64_t recorded = 0, completed = 0;
  // Set when the latest record was issued inside a stream capture: a stream that waits on the event while that
  // capture is open joins it (cross-stream capture); `capture_slot` is the record's graph-private event.
  std::shared_ptr<CaptureSession> capture;
  int capture_slot = -1;
};

struct Op {
  enum Kind { kernel, host_fn, event_record, event_wait } kind;
  std::shared_ptr<LaunchExec> launch;
  std::shared_ptr<const LaunchSpec> spec;  // in graphs: the launch to instantiate at replay
  std::function<void()> fn;
  std::shared_ptr<SimEvent> event;
  std::uint64_t target = 0;
  int slot = -1;  // in graphs: a record/wait of the graph-private event `slot` (an edge between branches)
};

// A captured graph: one lane per stream of the capture (lane 0: the stream that began it), each in issue order.
// Edges between lanes are records/waits of graph-private events (slots); a replay makes fresh events for them.
struct SimGraph {
  std::vector<std::vector<Op>> lanes{1};
  int event_slots = 0;
};

struct SimStream;
struct CaptureSession {
  std::shared_ptr<SimGraph> graph = std::make_shared<SimGraph>();
  SimStream* origin = nullptr;
  std::vector<SimStream*> members;  // every capturing stream, origin first; index = lane
  bool open = true;
};

struct SimStream {
  std::deque<Op> queue;
  bool active_head = false;  // the front kernel op has been activated
  bool capturing = false;
  std::shared_ptr<CaptureSession> session;  // while capturing
  std::size_t lane = 0;                     // this stream's lane in session->graph
  bool released = false;     // the owning Stream was destroyed; drop once drained
};

// An instantiated graph: the graph and the streams its joined lanes replay on (created at the first replay).
struct SimGraphExec {
  std::shared_ptr<SimGraph> graph;
  std::vector<SimStream*> lane_streams;  // lanes 1..n-1
};

struct LdsArray {
  const char* name;
  std::int64_t begin;  // byte offset in the arena
  std::size_t bytes;
  const void* key;     // declaration site / carve identity
  std::int64_t key_offset;
};

// The last write and the reads since it, each stamped with the block's epoch, the thread and its clock
// (happens_before.hpp); several unordered readers: r_tid kMultiReaders and r_clock their reader set (or kNoSet).
struct ShadowByte {
  std::uint32_t w_epoch, r_epoch;
  std::uint32_t w_clock, r_clock;
  std::uint16_t w_tid, r_tid;
  bool operator==(const ShadowByte&) const = default;
};
inline constexpr std::uint16_t kMultiReaders = 0xFFFF;
inline constexpr std::uint16_t kAtomicWriter = 0xFFFE;

struct LdsArena {
  std::vector<unsigned char> data;  // sized to the profile's capacity
  std::vector<ShadowByte> shadow;
  std::size_t size = 0;             // dynamic + static allocated so far
  std::size_t dynamic_bytes = 0;
  std::vector<LdsArray> arrays;
};

enum class ThreadState : unsigned char { ready, running, at_barrier, at_named_barrier, at_wave, at_mbarrier, at_cluster, done };

struct SimThread {
  ThreadCtx ctx;
  ctx::fiber fiber;  // the thread's continuation while suspended
  ctx::fiber sched;  // the scheduler's continuation while the thread runs
  FiberSanitizer san;
  bool started = false;    // its fiber has run (else an abort cancels it by running it once, body skipped)
  bool cancelled = false;
  ThreadState state = ThreadState::ready;
  std::source_location loc;  // where it waits
  WaveOp wave_op{};
  unsigned char value[16];
  unsigned char result[16];
  std::size_t bytes = 0;
  int src_lane = 0;
  bool pred = false;
  std::uint64_t vote = 0;
  WaveCollectiveFn coll_fn = nullptr;  // WaveOp::collective: the instruction, its operands and results
  const void* coll_user = nullptr;
  const void* coll_in = nullptr;
  void* coll_out = nullptr;
  const char* last_access = nullptr;  // hipsim: "file:line" of the thread's last checked access (watchdog report)
};

// A transaction barrier of kernels/nvidia/port/tma.hpp (mbarrier), keyed by its byte offset in the block's LDS window.
// A phase completes when all `expected` arrivals have come and the announced bytes have all landed.
struct MbarrierState {
  int expected = 0, pending = 0;
  int phase = 0;             // parity of the phase in progress
  std::int64_t tx = 0;       // bytes announced and not yet landed
  std::vector<int> waiters;  // threads blocked in mbarrier_wait on the phase in progress
  // Happens-before (happens_before.hpp): the releases of the phase in progress, and of the last completed phase
  // (what a wait that returns acquires).
  std::vector<std::uint32_t> releases, completed;
};

// A named barrier of kernels/nvidia/port/named_barrier.hpp in progress: the threads waiting, the count the first arrival
// gave, and their releases (each arrival acquires all of them when the count is reached).
struct NamedBarrierState {
  int threads = 0;
  std::vector<int> waiting;
  std::vector<std::uint32_t> releases;
};

struct BlockExec;
// A thread-block cluster in flight (LaunchConfig::cluster_blocks > 1): its blocks start together and are finished
// together (an exited block's LDS stays readable by the checks until then); cluster_sync waits for every thread.
struct ClusterExec {
  std::vector<BlockExec*> blocks;  // by rank
  int threads = 0;                 // every thread of every block
  int arrived = 0;                 // at the cluster barrier in progress
};

// Shadow thread ids of accesses made from another block of the cluster (port::cluster_lds): kRemoteTid | rank << 10 |
// linear thread (ranks < 8, threads < 1024).
inline constexpr std::uint16_t kRemoteTid = 0x8000;
inline bool is_remote_tid(std::uint16_t t) { return t >= kRemoteTid && t < kAtomicWriter; }

struct BlockExec {
  LaunchExec* launch = nullptr;
  std::shared_ptr<ClusterExec> cluster;  // null: not launched in clusters
  int cluster_rank = 0;
  std::uint32_t cluster_epoch = 0;       // LDS epoch opened by the last completed cluster barrier (or the start)
  Dim3 block_idx;
  int nthreads = 0, wave_size = 64, nwaves = 0;
  std::vector<SimThread> threads;
  std::deque<int> ready;
  int live = 0;
  int barrier_arrived = 0;
  std::source_location barrier_loc;
  bool barrier_mismatch = false;
  std::vector<int> wave_arrived;
  LdsArena lds;
  std::map<std::int64_t, MbarrierState> mbarriers;
  std::map<int, NamedBarrierState> named_barriers;
  std::uint32_t epoch_base = 0, epoch = 0;
  HappensBefore hb;  // ordering within an epoch: transaction barriers
  bool aborted = false;
  std::string abort_reason;
  int wave_lanes(int w) const { return std::min(wave_size, nthreads - w * wave_size); }
};

// Drops a thread's pending asynchronous copies (async_copy.cpp) and warpgroup MMA batches (wgmma_batches.cpp); the
// executor calls them at thread start and end.
void async_copy_forget(const ThreadCtx* thread);
void wgmma_forget(const ThreadCtx* thread);

// The block barrier completes (called by its last arrival, or by hipsim when the last thread not waiting returns under
// Options::barrier_skips_exited): waiters become ready, a new LDS epoch opens. `loc`: the completing site.
void release_barrier(BlockExec& b, const std::source_location& loc);

// Thrown inside a kernel thread to stop its launch (the failure is already recorded).
struct LaunchAbort {};

class Executor {
 public:
  static Executor& get();

  // configuration and reports
  Options options;
  const ArchProfile* profile = &kGfx950;
  int wave_size() const { return options.wave_size ? options.wave_size : profile->wave_size; }
  Report report;
  Stats stats;
  void add_violation(Violation v);
  Violation make_violation(ViolationKind k, const BlockExec* b, const SimThread* t) const;

  // streams and work
  SimStream* default_stream();
  SimStream* new_stream();
  void release_stream(SimStream* s);
  void enqueue(SimStream* s, Op op);
  // Runs work until done(); then rethrows launch failures unless keep_errors (they stay pending for the next sync).
  void drive(const std::function<bool()>& done, bool keep_errors = false);
  bool idle() const;
  void synchronize_all(bool keep_errors = false);
  void throw_pending_errors();
  const std::vector<BlockExec*>& blocks_in_flight() const { return in_flight_; }

  // threads
  void yield_current(ThreadState st);  // current thread suspends with state st
  SimThread& current_thread() const;
  void fail_launch(BlockExec& b, const std::string& why);  // record + abort block (from scheduler or thread)

  std::uint32_t next_epoch() { return ++epoch_counter_; }
  std::mt19937_64 rng;

 private:
  Executor();
  bool advance_heads();
  void activate(LaunchExec* l);
  BlockExec* start_block(LaunchExec* l);
  std::vector<BlockExec*> start_blocks(LaunchExec* l);  // one block, or a whole cluster
  void resolve_cluster(ClusterExec& c);  // after a run in a cluster: finish it, or report it stuck, when due
  void run_thread(BlockExec& b, SimThread& t);
  void after_run(BlockExec& b);  // finish or resolve a block with no ready thread
  void finish_block(BlockExec& b);
  void abort_block(BlockExec& b);
  void report_stuck(BlockExec& b);
  bool step_serial();
  bool step_random();
  void complete_launch(LaunchExec* l);

  std::vector<std::unique_ptr<SimStream>> streams_;
  std::vector<LaunchExec*> active_;
  std::vector<BlockExec*> in_flight_;
  std::vector<std::unique_ptr<BlockExec>> block_pool_;
  std::unique_ptr<StackPool> stacks_;
  std::vector<std::string> pending_errors_;
  std::uint32_t epoch_counter_ = 0;
  std::uint64_t next_launch_ = 1;
  friend void enqueue_launch(const LaunchConfig&, std::function<void()>);

 public:
  std::uint64_t take_launch_id() { return next_launch_++; }
  void reset_stacks();
};

}  // namespace dsv4::port::sim::detail
