// sim backend, sm_90 module: the device side of thread-block clusters (kernels/nvidia/port/cluster.hpp): rank, size,
// the cluster barrier (a new LDS epoch in every block of the cluster) and another block's LDS. The executor starts a
// cluster's blocks together and finishes them together (executor.cpp); lds.cpp checks the accesses across blocks.
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

int cluster_rank() { return g_current->block->cluster ? g_current->block->cluster_rank : 0; }

int cluster_blocks() {
  const BlockExec& b = *g_current->block;
  return b.cluster ? static_cast<int>(b.cluster->blocks.size()) : 1;
}

// Every thread of every block of the cluster; the last arrival opens a new LDS epoch in each block (writes before
// the barrier become readable from the other blocks, reads before it no longer conflict with writes after it).
void cluster_sync(const std::source_location& loc) {
  Executor& ex = Executor::get();
  SimThread& t = ex.current_thread();
  BlockExec& b = *t.ctx.block;
  if (!b.cluster) {
    syncthreads(loc);
    return;
  }
  ClusterExec& c = *b.cluster;
  t.loc = loc;
  if (++c.arrived < c.threads) {
    ex.yield_current(ThreadState::at_cluster);
    return;
  }
  ++ex.stats.barriers;
  c.arrived = 0;
  for (BlockExec* m : c.blocks) {
    m->epoch = m->cluster_epoch = ex.next_epoch();
    m->hb.new_epoch();
    for (SimThread& o : m->threads) {
      if (o.state == ThreadState::at_cluster) {
        o.state = ThreadState::ready;
        m->ready.push_back(o.ctx.linear);
      }
    }
  }
  if (ex.options.schedule == Schedule::random) {
    b.ready.push_back(t.ctx.linear);
    ex.yield_current(ThreadState::ready);
  } else {
    t.state = ThreadState::running;
  }
}

BlockExec* cluster_block(int rank) {
  BlockExec& b = *g_current->block;
  const int n = b.cluster ? static_cast<int>(b.cluster->blocks.size()) : 1;
  if (rank < 0 || rank >= n)
    throw std::runtime_error("port::cluster_lds: rank " + std::to_string(rank) + " outside the cluster of " +
                             std::to_string(n) + " workgroup(s)");
  if (!b.cluster || rank == b.cluster_rank) return nullptr;  // the block's own LDS
  return b.cluster->blocks[static_cast<std::size_t>(rank)];
}

}  // namespace dsv4::port::sim::detail
