// Launcher of the thread-block cluster test kernel (cluster_test_kernel.kernel.cpp), for test_port_cluster.cpp.
#pragma once

#include <cstdint>

#include "kernels/port/runtime.hpp"

namespace dsv4::test::clusterk {
// Misuses of the protocol (the sim must fail the launch; on a GPU they are races or faults).
enum class Misuse {
  none,
  no_sync_before_read,  // a workgroup reads its neighbour's LDS without a cluster_sync after the neighbour wrote it
  no_sync_before_exit,  // workgroups exit while others may still read their LDS
  rank_out_of_range,    // cluster_lds with rank = cluster size
};
// grid workgroups of `threads` threads in clusters of `cluster` (LaunchConfig::cluster_blocks). Each writes
// in[blockIdx.x * threads + t] * (rank + 1) to its LDS at t; after a cluster_sync every thread t reads element
// (t + rank) % threads of the next rank's LDS ((rank + 1) % cluster) and writes
//   out[blockIdx.x * threads + t] = that value + 1000 * rank + 1000000 * cluster_blocks().
void exchange(const float* in, float* out, int grid, int threads, int cluster, dsv4::port::Stream& s,
              Misuse misuse = Misuse::none);
}  // namespace dsv4::test::clusterk
