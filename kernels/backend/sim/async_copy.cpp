// sim backend: deferred asynchronous global -> LDS copies (kernels/port/async_copy.hpp). Each simulated thread owns
// a queue of committed groups plus its open group; async_copy_wait(n) performs the oldest groups until at most n
// remain, as that thread's LDS writes at that point (so the bounds, uninitialised-read and race checks see them
// where the hardware would make them visible at the latest). The executor clears a thread's queue when the
// thread starts and when it ends, so a queue never outlives its thread.
#include <cstring>

#include "kernels/backend/sim/deferred_batches.hpp"

namespace dsv4::port::sim::detail {

namespace {
struct PendingCopy {
  const BlockExec* block;  // the issuing thread's block: a copy never lands in another block's LDS
  int array;
  std::int64_t byte_offset;
  const void* src;
  bool valid;
};
thread_local DeferredBatches<PendingCopy> g_copies;

void perform(const PendingCopy& c) {
  if (c.block != g_current->block) return;  // unreachable while the executor forgets queues at thread start/end
  unsigned char bytes[16] = {};
  if (c.valid) std::memcpy(bytes, c.src, sizeof(bytes));
  lds_access(c.array, c.byte_offset, bytes, sizeof(bytes), LdsMode::write);
}
}  // namespace

void async_copy_issue(int array, std::int64_t byte_offset, const void* src, bool valid) {
  g_copies.add(PendingCopy{g_current->block, array, byte_offset, src, valid});
}

void async_copy_commit() { g_copies.commit(); }

void async_copy_wait(int pending_allowed) { g_copies.retire(pending_allowed, perform); }

void async_copy_forget(const ThreadCtx* thread) { g_copies.forget(thread); }

}  // namespace dsv4::port::sim::detail
