// sim backend, sm_90 module: named barriers (kernels/nvidia/port/named_barrier.hpp), barriers of some of the block's
// warps. A bad id or count fails the launch; a count never reached is a deadlock report (the executor's); the
// arrivals exchange their clocks for the LDS race check (happens_before.hpp).
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

namespace {
std::string site(const std::source_location& l) {
  return std::string(l.file_name()) + ":" + std::to_string(l.line());
}
}  // namespace

// A barrier of some of the block's threads: no new epoch (the others go on), the arrivals exchange their clocks.
void named_barrier_sync(int id, int threads, const std::source_location& loc) {
  Executor& ex = Executor::get();
  SimThread& t = ex.current_thread();
  BlockExec& b = *t.ctx.block;
  t.loc = loc;
  auto fail = [&](const std::string& why) {
    Violation v = ex.make_violation(ViolationKind::kernel_exception, &b, &t);
    v.detail = "port::named_barrier_sync at " + site(loc) + ": " + why;
    ex.add_violation(v);
    ex.fail_launch(b, v.detail);
    throw LaunchAbort{};
  };
  if (ex.profile->arch != Arch::sm_90) fail(std::string(ex.profile->name) + " has no named barriers");
  if (id < 1 || id >= kSm90NamedBarriers)
    fail("barrier id " + std::to_string(id) + " outside 1.." + std::to_string(kSm90NamedBarriers - 1));
  if (threads <= 0 || threads % b.wave_size != 0 || threads > b.nthreads)
    fail(std::to_string(threads) + " threads: not whole warps of the block's " + std::to_string(b.nthreads));
  NamedBarrierState& nb = b.named_barriers[id];
  if (nb.waiting.empty()) nb.threads = threads;
  else if (nb.threads != threads)
    fail("barrier " + std::to_string(id) + " awaited with " + std::to_string(threads) + " threads while " +
         std::to_string(nb.waiting.size()) + " arrivals wait for " + std::to_string(nb.threads));
  b.hb.release(t.ctx.linear, nb.releases);
  nb.waiting.push_back(t.ctx.linear);
  if (static_cast<int>(nb.waiting.size()) < threads) {
    ex.yield_current(ThreadState::at_named_barrier);  // the last arrival acquires for everyone
    return;
  }
  ++ex.stats.barriers;
  std::vector<int> wake = std::move(nb.waiting);
  nb.waiting.clear();
  std::vector<std::uint32_t> releases = std::move(nb.releases);
  nb.releases.clear();
  for (int w : wake) b.hb.acquire(w, releases);  // before anyone runs: the next round may reuse the barrier
  for (int w : wake) {
    if (w == t.ctx.linear) continue;
    SimThread& o = b.threads[static_cast<std::size_t>(w)];
    o.state = ThreadState::ready;
    b.ready.push_back(w);
  }
  if (ex.options.schedule == Schedule::random) {
    b.ready.push_back(t.ctx.linear);
    ex.yield_current(ThreadState::ready);
  } else {
    t.state = ThreadState::running;
  }
}

}  // namespace dsv4::port::sim::detail
