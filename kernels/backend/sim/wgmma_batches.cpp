// sim backend: deferred warpgroup MMAs (kernels/port/wgmma.hpp). Each simulated thread owns a queue of committed
// batches plus its open batch; wgmma_wait<n> performs the oldest batches until at most n remain, reading their LDS
// operands and writing the accumulators then: the latest point the hardware may read them, so a kernel that
// overwrites an operand tile (or reads an accumulator) before the wait that retires its batch computes wrong
// numbers on sim as it may on a GPU. The executor clears a thread's queue when the thread starts and when it ends.
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

namespace {
struct BatchQueue {
  std::vector<std::function<void()>> open;
  std::deque<std::vector<std::function<void()>>> committed;
};
// Fibers of one executor run on one OS thread: the queues are per OS thread, keyed by the fiber's context.
thread_local std::unordered_map<const ThreadCtx*, BatchQueue> g_batches;
}  // namespace

void wgmma_defer(std::function<void()> mma) { g_batches[g_current].open.push_back(std::move(mma)); }

void wgmma_commit_batch() {
  BatchQueue& q = g_batches[g_current];
  q.committed.push_back(std::move(q.open));
  q.open.clear();
}

void wgmma_retire(int pending_allowed) {
  auto it = g_batches.find(g_current);
  if (it == g_batches.end()) return;
  BatchQueue& q = it->second;
  while (static_cast<int>(q.committed.size()) > pending_allowed) {
    std::vector<std::function<void()>> batch = std::move(q.committed.front());
    q.committed.pop_front();
    for (const auto& mma : batch) mma();
  }
}

void wgmma_forget(const ThreadCtx* thread) { g_batches.erase(thread); }

}  // namespace dsv4::port::sim::detail
