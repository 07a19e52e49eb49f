// sim backend: the executor. Streams hold queued ops; kernel ops become active launches whose blocks run as sets of
// fibers (one per GPU thread). Serial schedule: one block at a time, each thread runs until it blocks, then the
// next ready one (FIFO). Random schedule: up to max_blocks_in_flight blocks of all active launches, a seeded RNG
// picks which ready thread runs next, and threads yield at every sync point. The blocks of a thread-block cluster
// start together, run interleaved (serial: round-robin over its blocks) and finish together.
#include <algorithm>
#include <map>

#include "kernels/backend/sim/sim_internal.hpp"
#include "kernels/port/detail/launch_log.hpp"

namespace dsv4::port::sim::detail {

thread_local ThreadCtx* g_current = nullptr;

Executor& Executor::get() {
  static Executor e;
  return e;
}

Executor::Executor() {
  streams_.push_back(std::make_unique<SimStream>());
  reset_stacks();
  rng.seed(options.seed);
}

void Executor::reset_stacks() { stacks_ = std::make_unique<StackPool>(options.stack_bytes); }

SimStream* Executor::default_stream() { return streams_.front().get(); }

SimStream* Executor::new_stream() {
  streams_.push_back(std::make_unique<SimStream>());
  return streams_.back().get();
}

void Executor::release_stream(SimStream* s) { s->released = true; }

bool Executor::idle() const {
  for (const auto& s : streams_)
    if (!s->queue.empty()) return false;
  return true;
}

void Executor::enqueue(SimStream* s, Op op) {
  if (s->capturing) {
    if (op.kind == Op::kernel) {
      op.spec = op.launch->spec;
      op.launch.reset();
    }
    s->session->graph->lanes[s->lane].push_back(std::move(op));
    return;
  }
  s->queue.push_back(std::move(op));
}

SimThread& Executor::current_thread() const {
  return g_current->block->threads[static_cast<std::size_t>(g_current->linear)];
}

void Executor::yield_current(ThreadState st) {
  SimThread& t = current_thread();
  t.state = st;
  t.san.fiber_leaves(false);
  t.sched = std::move(t.sched).resume();
  t.san.fiber_arrives();
}

Violation Executor::make_violation(ViolationKind k, const BlockExec* b, const SimThread* t) const {
  Violation v;
  v.kind = k;
  if (b) {
    v.kernel = b->launch->spec->name;
    v.launch_id = b->launch->id;
    v.block = b->block_idx;
  }
  if (t) v.thread = t->ctx.thread_idx;
  return v;
}

void Executor::add_violation(Violation v) {
  ++report.total;
  if (report.violations.size() < options.max_violations) report.violations.push_back(std::move(v));
}

void Executor::fail_launch(BlockExec& b, const std::string& why) {
  LaunchExec& l = *b.launch;
  if (!l.failed) {
    l.failed = true;
    l.error = "sim: launch of kernel '" + l.spec->name + "' (grid " + to_string(l.spec->cfg.grid) + ", block " +
              to_string(l.spec->cfg.block) + ") failed in block " + to_string(b.block_idx) + ": " + why;
  }
  b.aborted = true;
}

// ---- launches ------------------------------------------------------------------------------------------------

void enqueue_launch(const LaunchConfig& cfg, std::function<void()> body) {
  Executor& ex = Executor::get();
  const std::string name = cfg.kernel_name ? cfg.kernel_name : "";
  auto fail = [&](const std::string& why) {
    throw Error("sim: launch of " + port::detail::describe_launch(cfg) + " rejected: " + why);
  };
  if (cfg.grid.count() == 0 || cfg.block.count() == 0) fail("empty grid or block");
  if (cfg.block.count() > 1024) fail("more than 1024 threads per block");
  if (cfg.block.count() > 65535u * 64u) fail("block too large");
  if (const std::string why = port::detail::cluster_problem(cfg, *ex.profile); !why.empty()) fail(why);
  if (cfg.dynamic_lds_bytes > ex.profile->lds_bytes_per_block) {
    Violation v;
    v.kind = ViolationKind::lds_capacity;
    v.kernel = name;
    v.has_position = false;
    v.size = cfg.dynamic_lds_bytes;
    v.array_bytes = ex.profile->lds_bytes_per_block;
    v.detail = "dynamic LDS request above the " + std::string(ex.profile->name) + " capacity";
    ex.add_violation(v);
    fail("dynamic LDS " + std::to_string(cfg.dynamic_lds_bytes) + " B exceeds the " +
         std::string(ex.profile->name) + " capacity of " + std::to_string(ex.profile->lds_bytes_per_block) + " B");
  }
  SimStream* s = cfg.stream ? static_cast<SimStream*>(cfg.stream->native()) : ex.default_stream();
  auto spec = std::make_shared<LaunchSpec>();
  spec->cfg = cfg;
  spec->name = name;
  spec->cfg.kernel_name = spec->name.c_str();
  spec->cfg.stream = nullptr;
  spec->body = std::move(body);
  Op op{Op::kernel, std::make_shared<LaunchExec>(), nullptr, {}, nullptr, 0};
  op.launch->spec = spec;
  op.launch->stream = s;
  op.launch->id = port::detail::record_launch(cfg, s, s->capturing);
  ex.enqueue(s, std::move(op));
}

void Executor::activate(LaunchExec* l) {
  l->total_blocks = l->spec->cfg.grid.count();
  ++stats.launches;
  active_.push_back(l);
}

void Executor::complete_launch(LaunchExec* l) {
  if (l->failed) pending_errors_.push_back(l->error);
  active_.erase(std::find(active_.begin(), active_.end(), l));
  SimStream* s = l->stream;
  s->active_head = false;
  s->queue.pop_front();  // destroys *l
}

// Executes the non-kernel ops at stream heads and activates kernel heads; true if anything changed.
bool Executor::advance_heads() {
  bool progressed = false;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    SimStream* s = streams_[i].get();
    while (!s->queue.empty()) {
      Op& op = s->queue.front();
      if (op.kind == Op::kernel) {
        if (!s->active_head) {
          s->active_head = true;
          activate(op.launch.get());
          progressed = true;
        }
        break;
      }
      if (op.kind == Op::event_wait && op.event->completed < op.target) break;
      if (op.kind == Op::host_fn) op.fn();
      if (op.kind == Op::event_record) op.event->completed = std::max(op.event->completed, op.target);
      s->queue.pop_front();
      progressed = true;
    }
  }
  // drop released, drained streams (never the default one)
  for (std::size_t i = 1; i < streams_.size();) {
    if (streams_[i]->released && streams_[i]->queue.empty()) {
      streams_.erase(streams_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return progressed;
}

BlockExec* Executor::start_block(LaunchExec* l) {
  const LaunchConfig& cfg = l->spec->cfg;
  const std::size_t linear = l->next_block++;
  ++l->in_flight;
  BlockExec* b = nullptr;
  for (auto& p : block_pool_)
    if (p->launch == nullptr) { b = p.get(); break; }
  if (!b) {
    block_pool_.push_back(std::make_unique<BlockExec>());
    b = block_pool_.back().get();
  }
  b->launch = l;
  b->block_idx = Dim3(static_cast<unsigned>(linear % cfg.grid.x),
                      static_cast<unsigned>(linear / cfg.grid.x % cfg.grid.y),
                      static_cast<unsigned>(linear / (std::size_t(cfg.grid.x) * cfg.grid.y)));
  b->nthreads = static_cast<int>(cfg.block.count());
  b->wave_size = wave_size();
  b->nwaves = (b->nthreads + b->wave_size - 1) / b->wave_size;
  b->threads.resize(static_cast<std::size_t>(b->nthreads));
  b->ready.clear();
  b->live = b->nthreads;
  b->barrier_arrived = 0;
  b->barrier_mismatch = false;
  b->wave_arrived.assign(static_cast<std::size_t>(b->nwaves), 0);
  b->aborted = false;
  b->abort_reason.clear();
  // LDS arena: capacity-sized storage reused across blocks; epochs make old shadow state read as "never written".
  // data has a guard of another capacity after the window: raw-pointer accesses (hipsim) past the allocation land
  // there, where the checks drop them, instead of in the host heap.
  const std::size_t cap = profile->lds_bytes_per_block;
  if (b->lds.shadow.size() != cap) {
    b->lds.data.assign(2 * cap, 0xCD);
    b->lds.shadow.assign(cap, ShadowByte{});
  }
  b->lds.dynamic_bytes = cfg.dynamic_lds_bytes;
  b->lds.size = cfg.dynamic_lds_bytes;
  b->lds.arrays.clear();
  b->epoch_base = b->epoch = b->cluster_epoch = next_epoch();
  b->hb.reset(b->nthreads);
  b->named_barriers.clear();
  b->cluster.reset();
  b->cluster_rank = 0;
  ++stats.blocks;
  const std::function<void()>* body = &l->spec->body;
  for (int i = 0; i < b->nthreads; ++i) {
    SimThread& t = b->threads[static_cast<std::size_t>(i)];
    t.ctx.thread_idx = Dim3(static_cast<unsigned>(i % cfg.block.x), static_cast<unsigned>(i / cfg.block.x % cfg.block.y),
                            static_cast<unsigned>(i / (cfg.block.x * cfg.block.y)));
    t.ctx.block_idx = b->block_idx;
    t.ctx.block_dim = cfg.block;
    t.ctx.grid_dim = cfg.grid;
    t.ctx.wave_size = b->wave_size;
    t.ctx.linear = i;
    t.ctx.lane = i % b->wave_size;
    t.ctx.wave = i / b->wave_size;
    t.ctx.block = b;
    t.ctx.awaiting_previous_grid = cfg.overlap_previous;
    t.state = ThreadState::ready;
    t.started = t.cancelled = false;
    t.last_access = nullptr;
    t.fiber = ctx::fiber(std::allocator_arg, PooledStack{stacks_.get(), &t.san}, [this, &t, b, body](ctx::fiber&& s) {
      t.san.fiber_arrives();
      t.started = true;
      t.sched = std::move(s);
      async_copy_forget(&t.ctx);
      wgmma_forget(&t.ctx);
      if (!t.cancelled) try {
        (*body)();
      } catch (const ctx::detail::forced_unwind&) {  // abort_block unwinds the suspended thread
        t.san.fiber_arrives();
        t.san.fiber_leaves(true);
        throw;
      } catch (const LaunchAbort&) {
        b->aborted = true;
      } catch (const std::exception& e) {
        Violation v = make_violation(ViolationKind::kernel_exception, b, &t);
        v.detail = e.what();
        add_violation(v);
        fail_launch(*b, "exception in thread " + to_string(t.ctx.thread_idx) + ": " + e.what());
      } catch (...) {
        Violation v = make_violation(ViolationKind::kernel_exception, b, &t);
        v.detail = "unknown exception";
        add_violation(v);
        fail_launch(*b, "unknown exception in thread " + to_string(t.ctx.thread_idx));
      }
      async_copy_forget(&t.ctx);
      wgmma_forget(&t.ctx);
      t.state = ThreadState::done;
      --b->live;
      t.san.fiber_leaves(true);
      return std::move(t.sched);
    });
    b->ready.push_back(i);
  }
  stats.threads += static_cast<std::uint64_t>(b->nthreads);
  in_flight_.push_back(b);
  return b;
}

std::vector<BlockExec*> Executor::start_blocks(LaunchExec* l) {
  const unsigned c = l->spec->cfg.cluster_blocks;
  if (c <= 1) return {start_block(l)};
  auto cluster = std::make_shared<ClusterExec>();
  for (unsigned r = 0; r < c; ++r) {
    BlockExec* b = start_block(l);
    b->cluster = cluster;
    b->cluster_rank = static_cast<int>(r);
    cluster->blocks.push_back(b);
    cluster->threads += b->nthreads;
  }
  return cluster->blocks;
}

void Executor::run_thread(BlockExec& b, SimThread& t) {
  t.state = ThreadState::running;
  g_current = &t.ctx;
  t.san.scheduler_leaves();
  t.fiber = std::move(t.fiber).resume();
  t.san.scheduler_arrives();
  g_current = nullptr;
  stats.fiber_switches += 2;
}

void Executor::abort_block(BlockExec& b) {
  for (SimThread& t : b.threads) {
    if (t.fiber) {
      g_current = &t.ctx;
      t.cancelled = true;
      t.san.scheduler_leaves();
      if (t.started)
        t.fiber = ctx::fiber();  // unwinds the suspended thread's stack (forced_unwind)
      else
        t.fiber = std::move(t.fiber).resume();  // runs to its end at once, body skipped
      t.san.scheduler_arrives();
      async_copy_forget(&t.ctx);
      wgmma_forget(&t.ctx);
      g_current = nullptr;
    }
  }
  b.live = 0;
  b.ready.clear();
}

void Executor::finish_block(BlockExec& b) {
  LaunchExec* l = b.launch;
  if (b.aborted || b.live > 0) abort_block(b);
  --l->in_flight;
  ++l->blocks_done;
  if (l->failed) {  // a failed launch runs no further blocks
    l->blocks_done += l->total_blocks - l->next_block;
    l->next_block = l->total_blocks;
  }
  b.launch = nullptr;
  b.cluster.reset();
  in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), &b));
  if (l->blocks_done == l->total_blocks && l->in_flight == 0) complete_launch(l);
}

void Executor::resolve_cluster(ClusterExec& c) {
  bool aborted = false, all_done = true;
  for (BlockExec* m : c.blocks) {
    aborted |= m->aborted;
    all_done &= m->live == 0;
  }
  if (!aborted) {
    for (BlockExec* m : c.blocks)
      if (!m->ready.empty()) return;  // the cluster still runs
    if (!all_done)
      for (BlockExec* m : c.blocks)
        if (m->live > 0 && !m->aborted) report_stuck(*m);
  }
  const std::vector<BlockExec*> members = c.blocks;  // c dies with the last member's reference
  for (BlockExec* m : members) finish_block(*m);
}

void Executor::after_run(BlockExec& b) {
  if (b.cluster) {
    resolve_cluster(*b.cluster);
    return;
  }
  if (b.aborted) {
    finish_block(b);
    return;
  }
  if (!b.ready.empty()) return;
  if (b.live > 0) report_stuck(b);
  finish_block(b);
}

bool Executor::step_serial() {
  LaunchExec* l = nullptr;
  for (LaunchExec* a : active_)
    if (a->next_block < a->total_blocks && (!l || a->id < l->id)) l = a;
  if (!l) return false;
  const std::vector<BlockExec*> blocks = start_blocks(l);
  // One block: each thread until it blocks, then the next. A cluster: the same for each block in rank order, round
  // after round, until no thread of the cluster is ready (all exited, or stuck) or one block failed.
  for (bool ran = true, failed = false; ran && !failed;) {
    ran = false;
    for (BlockExec* b : blocks) {
      while (!b->ready.empty() && !b->aborted) {
        const int i = b->ready.front();
        b->ready.pop_front();
        run_thread(*b, b->threads[static_cast<std::size_t>(i)]);
        ran = true;
      }
      failed |= b->aborted;
    }
  }
  after_run(*blocks.front());
  return true;
}

bool Executor::step_random() {
  std::vector<LaunchExec*> startable;
  for (LaunchExec* a : active_)
    if (a->next_block < a->total_blocks) startable.push_back(a);
  const bool can_start = !startable.empty() && in_flight_.size() < std::size_t(std::max(1, options.max_blocks_in_flight));
  if (can_start && (in_flight_.empty() || rng() % 4 == 0)) {
    start_blocks(startable[rng() % startable.size()]);
    return true;
  }
  // Blocks with a ready thread (a cluster's block may have none while its threads wait at the cluster barrier).
  std::vector<BlockExec*> runnable;
  for (BlockExec* f : in_flight_)
    if (!f->ready.empty()) runnable.push_back(f);
  if (runnable.empty()) return false;
  BlockExec* b = runnable[rng() % runnable.size()];
  // wave_lockstep (hipsim): the block's threads stay in FIFO order, which keeps each wave's lanes in lockstep;
  // the seed still picks which block runs and when blocks start.
  const std::size_t k = options.wave_lockstep ? 0 : rng() % b->ready.size();
  const int i = b->ready[k];
  b->ready.erase(b->ready.begin() + static_cast<std::ptrdiff_t>(k));
  run_thread(*b, b->threads[static_cast<std::size_t>(i)]);
  after_run(*b);
  return true;
}

void Executor::drive(const std::function<bool()>& done, bool keep_errors) {
  while (!done()) {
    bool progressed = advance_heads();
    if (done()) break;
    progressed |= options.schedule == Schedule::serial ? step_serial() : step_random();
    if (!progressed) {
      throw Error("sim: synchronisation can never complete: no runnable work (a stream waits on an event that is "
                  "never reached)");
    }
  }
  if (!keep_errors) throw_pending_errors();
}

void Executor::synchronize_all(bool keep_errors) {
  drive([this] { return idle(); }, keep_errors);
}

void Executor::throw_pending_errors() {
  if (pending_errors_.empty()) return;
  std::string msg;
  for (const std::string& e : pending_errors_) msg += (msg.empty() ? "" : "\n") + e;
  pending_errors_.clear();
  throw Error(msg);
}

// ---- stuck blocks ----------------------------------------------------------------------------------------------

namespace {
std::string position(const SimThread& t) {
  auto at = [](const std::source_location& l) { return std::string(l.file_name()) + ":" + std::to_string(l.line()); };
  switch (t.state) {
    case ThreadState::done: return "exited";
    case ThreadState::at_barrier: return "waiting at __syncthreads " + at(t.loc);
    case ThreadState::at_named_barrier: return "waiting at a named barrier whose count is never reached " + at(t.loc);
    case ThreadState::at_wave: return "waiting at wave op " + at(t.loc);
    case ThreadState::at_mbarrier: return "waiting at an mbarrier phase that never completes " + at(t.loc);
    case ThreadState::at_cluster: return "waiting at port::cluster_sync " + at(t.loc);
    case ThreadState::ready: return "ready";
    case ThreadState::running: return "running";
  }
  return "?";
}
}  // namespace

void Executor::report_stuck(BlockExec& b) {
  // Positions, grouped over runs of consecutive threads with the same position.
  std::string detail;
  for (int i = 0; i < b.nthreads;) {
    const std::string p = position(b.threads[static_cast<std::size_t>(i)]);
    int j = i + 1;
    while (j < b.nthreads && position(b.threads[static_cast<std::size_t>(j)]) == p) ++j;
    detail += "threads " + std::to_string(i) + (j - 1 > i ? "-" + std::to_string(j - 1) : "") + ": " + p + "; ";
    i = j;
  }
  // A wave with lanes waiting at a wave op while others are elsewhere: divergence.
  for (int w = 0; w < b.nwaves; ++w) {
    if (b.wave_arrived[static_cast<std::size_t>(w)] == 0) continue;
    const SimThread* first = nullptr;
    for (int l = 0; l < b.wave_lanes(w); ++l) {
      const SimThread& t = b.threads[static_cast<std::size_t>(w * b.wave_size + l)];
      if (t.state == ThreadState::at_wave && !first) first = &t;
    }
    Violation v = make_violation(ViolationKind::wave_divergence, &b, first);
    v.detail = "wave " + std::to_string(w) + ": " + std::to_string(b.wave_arrived[static_cast<std::size_t>(w)]) +
               " of " + std::to_string(b.wave_lanes(w)) + " lanes reached the wave op; the others never can";
    add_violation(v);
  }
  const SimThread* waiter = nullptr;
  for (const SimThread& t : b.threads)
    if (t.state != ThreadState::done) { waiter = &t; break; }
  Violation v = make_violation(ViolationKind::deadlock, &b, waiter);
  v.detail = detail;
  add_violation(v);
  fail_launch(b, "deadlock: " + detail);
}

}  // namespace dsv4::port::sim::detail
