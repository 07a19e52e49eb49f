// sim backend: the places where a GPU thread may wait or be preempted: __syncthreads (all threads of the block),
// wave exchanges and votes (all lanes of the wave, exact), atomics and fences (random schedule only).
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

namespace {
bool same_site(const std::source_location& a, const std::source_location& b) {
  return a.line() == b.line() && a.column() == b.column() && std::strcmp(a.file_name(), b.file_name()) == 0;
}
std::string site(const std::source_location& l) {
  return std::string(l.file_name()) + ":" + std::to_string(l.line());
}
}  // namespace

void preempt_point() {
  Executor& ex = Executor::get();
  if (ex.options.schedule != Schedule::random || !g_current) return;
  SimThread& t = ex.current_thread();
  t.ctx.block->ready.push_back(t.ctx.linear);
  ex.yield_current(ThreadState::ready);
}

void check_previous_grid_waited(const char* what) {
  if (g_current && g_current->awaiting_previous_grid)
    throw std::runtime_error(std::string("global memory ") + what +
                             " before port::wait_for_previous_grid() in a launch with overlap_previous (programmatic "
                             "dependent launch: the previous kernel on the stream may still be writing it)");
}

void wait_previous_grid() {
  if (g_current) g_current->awaiting_previous_grid = false;
  preempt_point();
}

void preempt_global_access() {
  check_previous_grid_waited("access");
  if (Executor::get().options.preempt_global) preempt_point();
}

void syncthreads(const std::source_location& loc) {
  Executor& ex = Executor::get();
  SimThread& t = ex.current_thread();
  BlockExec& b = *t.ctx.block;
  t.loc = loc;
  if (b.barrier_arrived++ == 0) {
    b.barrier_loc = loc;
  } else if (!same_site(b.barrier_loc, loc)) {
    b.barrier_mismatch = true;
  }
  // Options::barrier_skips_exited (CDNA): the barrier waits for the threads still running only.
  if (b.barrier_arrived < (ex.options.barrier_skips_exited ? b.live : b.nthreads)) {
    ex.yield_current(ThreadState::at_barrier);
    return;
  }
  release_barrier(b, loc);
  if (ex.options.schedule == Schedule::random) {
    b.ready.push_back(t.ctx.linear);
    ex.yield_current(ThreadState::ready);
  } else {
    t.state = ThreadState::running;
  }
}

void release_barrier(BlockExec& b, const std::source_location& loc) {
  // Last arrival: release everyone, open a new LDS epoch.
  Executor& ex = Executor::get();
  SimThread& t = ex.current_thread();
  ++ex.stats.barriers;
  if (b.barrier_mismatch) {
    Violation v = ex.make_violation(ViolationKind::barrier_divergence, &b, &t);
    v.detail = "threads of the block met at different __syncthreads sites (first " + site(b.barrier_loc) +
               ", last " + site(loc) + ")";
    ex.add_violation(v);
    if (ex.options.fail_on_violation) {
      ex.fail_launch(b, "barrier divergence");
      throw LaunchAbort{};
    }
  }
  b.barrier_arrived = 0;
  b.barrier_mismatch = false;
  b.epoch = ex.next_epoch();
  b.hb.new_epoch();
  for (SimThread& o : b.threads) {
    if (o.state == ThreadState::at_barrier) {
      o.state = ThreadState::ready;
      b.ready.push_back(o.ctx.linear);
    }
  }
}


namespace {
// Called by the last lane to arrive: compute every lane's result and release the wave.
void complete_wave(Executor& ex, BlockExec& b, int w) {
  const int base = w * b.wave_size, n = b.wave_lanes(w);
  SimThread* lanes = &b.threads[static_cast<std::size_t>(base)];
  const SimThread& first = lanes[0];
  bool diverged = false;
  for (int l = 1; l < n; ++l) {
    if (lanes[l].wave_op != first.wave_op || !same_site(lanes[l].loc, first.loc) ||
        lanes[l].coll_fn != first.coll_fn) {
      Violation v = ex.make_violation(ViolationKind::wave_divergence, &b, &lanes[l]);
      v.detail = "lanes of wave " + std::to_string(w) + " met at different wave ops (" + site(first.loc) + " and " +
                 site(lanes[l].loc) + ")";
      ex.add_violation(v);
      diverged = true;
      break;
    }
  }
  // A diverged wave runs no collective: some lanes' operands belong to another op (or are null). Their outputs keep
  // what the caller had there; the finding says why.
  if (!diverged && first.wave_op == WaveOp::collective && first.coll_fn) {
    std::vector<const void*> in(static_cast<std::size_t>(n));
    std::vector<void*> out(static_cast<std::size_t>(n));
    for (int l = 0; l < n; ++l) {
      in[static_cast<std::size_t>(l)] = lanes[l].coll_in;
      out[static_cast<std::size_t>(l)] = lanes[l].coll_out;
    }
    first.coll_fn(first.coll_user, n, in.data(), out.data());
  }
  std::uint64_t mask = 0;
  for (int l = 0; l < n; ++l)
    if (lanes[l].pred) mask |= std::uint64_t(1) << l;
  for (int l = 0; l < n; ++l) {
    SimThread& t = lanes[l];
    switch (t.wave_op) {
      case WaveOp::collective:
        break;
      case WaveOp::ballot:
      case WaveOp::any:
      case WaveOp::all: {
        const std::uint64_t all_lanes = n == 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << n) - 1);
        t.vote = t.wave_op == WaveOp::ballot ? mask
                 : t.wave_op == WaveOp::any  ? (mask != 0)
                                             : (mask == all_lanes);
        break;
      }
      default: {
        const int src = t.src_lane;
        if (src >= 0 && src < n) {
          std::memcpy(t.result, lanes[src].value, t.bytes);
        } else {
          std::memset(t.result, 0, t.bytes);
          Violation v = ex.make_violation(ViolationKind::shuffle_source_inactive, &b, &t);
          v.detail = "lane " + std::to_string(l) + " read lane " + std::to_string(src) + " of a wave of " +
                     std::to_string(n) + " lanes; returned 0";
          ex.add_violation(v);
        }
      }
    }
  }
  b.wave_arrived[static_cast<std::size_t>(w)] = 0;
  for (int l = 0; l < n; ++l) {
    if (lanes[l].state == ThreadState::at_wave) {
      lanes[l].state = ThreadState::ready;
      b.ready.push_back(base + l);
    }
  }
}

void arrive_wave(SimThread& t) {
  Executor& ex = Executor::get();
  BlockExec& b = *t.ctx.block;
  const int w = t.ctx.wave;
  if (++b.wave_arrived[static_cast<std::size_t>(w)] < b.wave_lanes(w)) {
    ex.yield_current(ThreadState::at_wave);
    return;
  }
  complete_wave(ex, b, w);
  if (ex.options.schedule == Schedule::random) {
    b.ready.push_back(t.ctx.linear);
    ex.yield_current(ThreadState::ready);
  } else {
    t.state = ThreadState::running;
  }
}
}  // namespace

void wave_exchange(WaveOp op, const void* value, std::size_t bytes, int src_lane, void* out,
                   const std::source_location& loc) {
  SimThread& t = Executor::get().current_thread();
  t.wave_op = op;
  t.loc = loc;
  std::memcpy(t.value, value, bytes);
  t.bytes = bytes;
  t.src_lane = src_lane;
  t.pred = false;
  arrive_wave(t);
  std::memcpy(out, t.result, bytes);
}

void wave_collective(WaveCollectiveFn fn, const void* user, const void* in, void* out, const std::source_location& loc) {
  SimThread& t = Executor::get().current_thread();
  t.wave_op = WaveOp::collective;
  t.loc = loc;
  t.coll_fn = fn;
  t.coll_user = user;
  t.coll_in = in;
  t.coll_out = out;
  t.bytes = 0;
  t.pred = false;
  arrive_wave(t);
  t.coll_fn = nullptr;
}

std::uint64_t wave_vote(WaveOp op, bool pred, const std::source_location& loc) {
  SimThread& t = Executor::get().current_thread();
  t.wave_op = op;
  t.loc = loc;
  t.pred = pred;
  t.bytes = 0;
  arrive_wave(t);
  return t.vote;
}

}  // namespace dsv4::port::sim::detail
