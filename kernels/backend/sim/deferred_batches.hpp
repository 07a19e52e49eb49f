// sim backend: per-thread queues of deferred operations in batches (asynchronous copies, warpgroup MMAs): operations
// join the open batch, commit closes it, and retire(n) performs the oldest committed batches until at most n remain.
// Fibers of one executor run on one OS thread: the queues live in a thread_local map keyed by the fiber's context;
// the executor forgets a thread's queue when the thread starts and when it ends.
#pragma once

#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

template <class Op>
class DeferredBatches {
 public:
  void add(Op op) { queues_[g_current].open.push_back(std::move(op)); }
  void commit() {
    Queue& q = queues_[g_current];
    q.committed.push_back(std::move(q.open));
    q.open.clear();
  }
  template <class Perform>
  void retire(int pending_allowed, Perform&& perform) {
    auto it = queues_.find(g_current);
    if (it == queues_.end()) return;
    Queue& q = it->second;
    while (static_cast<int>(q.committed.size()) > pending_allowed) {
      std::vector<Op> batch = std::move(q.committed.front());
      q.committed.pop_front();
      for (const Op& op : batch) perform(op);
    }
  }
  void forget(const ThreadCtx* thread) { queues_.erase(thread); }

 private:
  struct Queue {
    std::vector<Op> open;
    std::deque<std::vector<Op>> committed;
  };
  std::unordered_map<const ThreadCtx*, Queue> queues_;
};

}  // namespace dsv4::port::sim::detail
