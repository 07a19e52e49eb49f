// sim backend: deferred asynchronous global -> LDS copies (kernels/port/async_copy.hpp). Each simulated thread owns
// a queue of committed groups plus its open group; async_copy_wait(n) performs the oldest groups until at most n
// remain, as that thread's LDS writes at that point (so the bounds, uninitialised-read and race checks see them
// where the hardware would make them visible at the latest). The executor clears a thread's queue when the
// thread starts and when it ends, so a queue never outlives its thread.
#include <cstring>
#include <deque>
#include <unordered_map>
#include <vector>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

namespace {
struct PendingCopy {
  const BlockExec* block;  // the issuing thread's block: a copy never lands in another block's LDS
  int array;
  std::int64_t byte_offset;
  const void* src;
  bool valid;
};
struct CopyQueue {
  std::vector<PendingCopy> open;
  std::deque<std::vector<PendingCopy>> committed;
};
// Fibers of one executor run on one OS thread: the queues are per OS thread, keyed by the fiber's context.
thread_local std::unordered_map<const ThreadCtx*, CopyQueue> g_queues;

void perform(const PendingCopy& c) {
  if (c.block != g_current->block) return;  // unreachable while the executor forgets queues at thread start/end
  unsigned char bytes[16] = {};
  if (c.valid) std::memcpy(bytes, c.src, sizeof(bytes));
  lds_access(c.array, c.byte_offset, bytes, sizeof(bytes), LdsMode::write);
}
}  // namespace

void async_copy_issue(int array, std::int64_t byte_offset, const void* src, bool valid) {
  g_queues[g_current].open.push_back(PendingCopy{g_current->block, array, byte_offset, src, valid});
}

void async_copy_commit() {
  CopyQueue& q = g_queues[g_current];
  q.committed.push_back(std::move(q.open));
  q.open.clear();
}

void async_copy_wait(int pending_allowed) {
  auto it = g_queues.find(g_current);
  if (it == g_queues.end()) return;
  CopyQueue& q = it->second;
  while (static_cast<int>(q.committed.size()) > pending_allowed) {
    std::vector<PendingCopy> group = std::move(q.committed.front());
    q.committed.pop_front();
    for (const PendingCopy& c : group) perform(c);
  }
}

void async_copy_forget(const ThreadCtx* thread) { g_queues.erase(thread); }

}  // namespace dsv4::port::sim::detail
