// Test kernel of kernels/nvidia/port/cluster.hpp: a ring exchange through distributed LDS between the workgroups of a
// cluster, with the protocol's barriers (or, for the misuse cases, without one of them).
#include "kernels/nvidia/port/cluster.hpp"
#include "kernels/port/hip_port.hpp"
#include "tests/kernels/nvidia/port/cluster_test_kernel.hpp"

namespace dsv4::test::clusterk {

namespace {

__global__ void exchange_kernel(const float* in, float* out, int misuse) {
  DSV4_LDS_DYNAMIC(float, smem);
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int rank = port::cluster_rank(), size = port::cluster_blocks();
  const std::int64_t at = static_cast<std::int64_t>(blockIdx.x) * threads + tid;
  smem[tid] = port::global_load(in + at) * static_cast<float>(rank + 1);
  if (misuse != static_cast<int>(Misuse::no_sync_before_read)) port::cluster_sync();
  const int peer = misuse == static_cast<int>(Misuse::rank_out_of_range) ? size : (rank + 1) % size;
  const float v = port::cluster_lds(smem, peer)[(tid + rank) % threads];
  port::global_store(out + at, v + 1000.f * static_cast<float>(rank) + 1e6f * static_cast<float>(size));
  if (misuse != static_cast<int>(Misuse::no_sync_before_exit)) port::cluster_sync();
}

}  // namespace

void exchange(const float* in, float* out, int grid, int threads, int cluster, port::Stream& s, Misuse misuse) {
  const std::size_t bytes = static_cast<std::size_t>(grid) * threads * sizeof(float);
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(grid)), port::Dim3(static_cast<unsigned>(threads)),
                         static_cast<std::size_t>(threads) * sizeof(float), &s, "cluster_exchange_test",
                         {port::reads(in, bytes, "in"), port::writes(out, bytes, "out")}};
  cfg.cluster_blocks = static_cast<unsigned>(cluster);
  port::launch(&exchange_kernel, cfg, in, out, static_cast<int>(misuse));
}

}  // namespace dsv4::test::clusterk
