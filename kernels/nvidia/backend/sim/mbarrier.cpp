// sim backend, sm_90 module: the transaction barriers of kernels/nvidia/port/tma.hpp with their real semantics. Arrivals and landed
// bytes complete a phase, a wait blocks the thread (a scheduler state, like __syncthreads) until the phase with
// its parity completes, so a kernel that waits on a phase nobody completes (wrong parity, a missing
// arrive_expect_tx, a byte count larger than what its copies bring) is reported as a deadlock naming the wait,
// where a GPU would hang. Misuse (a wait or arrival on a barrier never initialised, more arrivals than expected)
// stops the launch with the reason. For the LDS race check, an arrival (and a landed copy, for its issuing thread)
// is a release and a wait that returns an acquire of the completed phase (happens_before.hpp).
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {


namespace {

BlockExec& current_block() { return *g_current->block; }

std::string where(std::int64_t key) { return "mbarrier at LDS byte " + std::to_string(key); }

MbarrierState& state(BlockExec& b, std::int64_t key, const char* op) {
  auto it = b.mbarriers.find(key);
  if (it == b.mbarriers.end())
    throw std::runtime_error(std::string(op) + " on an " + where(key) + " that was never initialised (or was invalidated)");
  return it->second;
}

void complete_if_done(BlockExec& b, MbarrierState& s) {
  if (s.pending > 0 || s.tx != 0) return;
  s.phase ^= 1;
  s.pending = s.expected;
  s.completed = std::move(s.releases);
  s.releases.clear();
  for (int w : s.waiters) {
    SimThread& t = b.threads[static_cast<std::size_t>(w)];
    t.state = ThreadState::ready;
    b.ready.push_back(w);
  }
  s.waiters.clear();
}

}  // namespace

void mbarrier_init(int array, std::int64_t byte_offset, int count) {
  std::uint64_t word = static_cast<std::uint64_t>(count);
  lds_access(array, byte_offset, &word, 8, LdsMode::atomic_write);  // bounds-checked like any LDS access
  if (count < 1) throw std::runtime_error("mbarrier_init with an arrival count of " + std::to_string(count));
  BlockExec& b = current_block();
  MbarrierState s;
  s.expected = s.pending = count;
  b.mbarriers[lds_arena_offset(array, byte_offset)] = s;
  if (count > 1) b.hb.precise = true;  // several threads release to its waiters: track readers one by one
}

void mbarrier_arrive(int array, std::int64_t byte_offset) {
  BlockExec& b = current_block();
  const std::int64_t key = lds_arena_offset(array, byte_offset);
  MbarrierState& s = state(b, key, "mbarrier_arrive");
  if (s.pending <= 0) throw std::runtime_error("more arrivals than expected on the " + where(key));
  b.hb.release(g_current->linear, s.releases);
  --s.pending;
  complete_if_done(b, s);
}

void mbarrier_arrive_expect_tx(int array, std::int64_t byte_offset, unsigned bytes) {
  BlockExec& b = current_block();
  const std::int64_t key = lds_arena_offset(array, byte_offset);
  MbarrierState& s = state(b, key, "arrive_expect_tx");
  if (s.pending <= 0) throw std::runtime_error("more arrivals than expected on the " + where(key));
  b.hb.release(g_current->linear, s.releases);
  s.tx += bytes;
  --s.pending;
  complete_if_done(b, s);
}

void mbarrier_complete_tx(int array, std::int64_t byte_offset, unsigned bytes) {
  BlockExec& b = current_block();
  MbarrierState& s = state(b, lds_arena_offset(array, byte_offset), "a bulk copy completing");
  b.hb.release(g_current->linear, s.releases);  // the copy's LDS writes were the issuing thread's
  s.tx -= bytes;
  complete_if_done(b, s);
}

void mbarrier_wait(int array, std::int64_t byte_offset, int parity, const std::source_location& loc) {
  Executor& ex = Executor::get();
  BlockExec& b = current_block();
  const std::int64_t key = lds_arena_offset(array, byte_offset);
  while (state(b, key, "mbarrier_wait").phase == (parity & 1)) {  // the phase with this parity is in progress
    SimThread& t = ex.current_thread();
    t.loc = loc;
    state(b, key, "mbarrier_wait").waiters.push_back(t.ctx.linear);
    ex.yield_current(ThreadState::at_mbarrier);
  }
  b.hb.acquire(g_current->linear, state(b, key, "mbarrier_wait").completed);
}

void mbarrier_inval(int array, std::int64_t byte_offset) {
  current_block().mbarriers.erase(lds_arena_offset(array, byte_offset));
}

}  // namespace dsv4::port::sim::detail
