// sim backend, sm_90 module: deferred warpgroup MMAs (kernels/nvidia/port/wgmma.hpp). Each simulated thread owns a queue of committed
// batches plus its open batch; wgmma_wait<n> performs the oldest batches until at most n remain, reading their LDS
// operands and writing the accumulators then: the latest point the hardware may read them, so a kernel that
// overwrites an operand tile (or reads an accumulator) before the wait that retires its batch computes wrong
// numbers on sim as it may on a GPU. The executor clears a thread's queue when the thread starts and when it ends.
#include <functional>

#include "kernels/backend/sim/deferred_batches.hpp"

namespace dsv4::port::sim::detail {

namespace {
thread_local DeferredBatches<std::function<void()>> g_batches;
}  // namespace

void wgmma_defer(std::function<void()> mma) { g_batches.add(std::move(mma)); }

void wgmma_commit_batch() { g_batches.commit(); }

void wgmma_retire(int pending_allowed) {
  g_batches.retire(pending_allowed, [](const std::function<void()>& mma) { mma(); });
}

void wgmma_forget(const ThreadCtx* thread) { g_batches.forget(thread); }

}  // namespace dsv4::port::sim::detail
