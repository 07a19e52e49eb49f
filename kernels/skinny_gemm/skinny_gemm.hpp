// Host API of the split-K skinny GEMM: out[N,M] = a[N,K]·b[M,K]^T + bias (ops.md §6), on device buffers.
// Workspace is caller-owned (CUTLASS style: plan.workspace_bytes / workspace_size(), initialize_workspace once,
// then launch) or comes from a SkinnyWorkspacePool (one slot per stream, on-demand fallback, capture slots).
// Invariant of every workspace: its counters are zero between launches (the last arriver resets its counter).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::kernels::skinny {

// Device pointers. a: N rows of row stride shape.lda (elements); b: [M, K] contiguous; bias: per
// shape.bias ([M], [N, M] or [1, M], contiguous) or null; out: [N, M] contiguous. Elements are raw bf16/fp16.
struct SkinnyBuffers {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* bias = nullptr;
  void* out = nullptr;
};

// The numbers every kernel runs with, all taken from the plan (tests compare them with the predicate's); an arch
// layout's own numbers are its launcher's (SkinnyPlan::arch_layout).
struct SkinnyKernelArgs {
  std::int64_t k_rnd = 0, k_shard = 0, tiles_m = 0;
  int k_chunk = 0, chunks_per_shard = 0, tile_m = 0, n_p2 = 0, k_groups = 0, rows_per_n_tile = 0;
  int n_slices = 1, slice_rows = 0;  // output-row slices: workgroup tiles are (M-tile, slice), one counter each
  int readback_batch_shards = 0, readback_pass_outputs = 0;
  // log2 of tile_m and of the readback N-tile (rows_per_n_tile * tile_m): the epilogues index by shifts.
  int tm_shift = 0, readback_stage_shift = 0;
  std::size_t partial_offset = 0, partial_bytes = 0, counter_offset = 0, lds_bytes = 0;
  std::int64_t grid = 0;
  int block = 0;
  bool overlap_previous = false;  // LaunchConfig::overlap_previous (every skinny kernel waits before global accesses)
};
SkinnyKernelArgs kernel_args(const SkinnyPlan& plan);

// Zeroes the counters of a caller-owned workspace (once, before its first use; stream-ordered).
void initialize_workspace(const SkinnyPlan& plan, port::DeviceBuffer& workspace, port::Stream& stream);

// Launch with a caller-owned workspace of `workspace_bytes`. Refuses before launch (dsv4::InputError naming the
// limit) when the plan is not admitted or the workspace is smaller than plan.workspace_bytes; a launch error is a
// port::Error naming the kernel, grid and shape.
void launch_skinny_gemm(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace, std::size_t workspace_bytes,
                        port::Stream& stream);

// Per-device pool: `slots` pre-allocated, pre-zeroed slots of `slot_bytes`, one per distinct stream (first come),
// plus `capture_slots` reserved for launches recorded into graphs (each such launch keeps its own slot for the
// graph's lifetime, so replaying a graph on any stream never shares a workspace with live launches). A stream
// beyond the slots, or a request above slot_bytes, gets an on-demand allocation owned by the pool (made outside
// capture only). Create it in an explicit init phase (known-bugs #4).
class SkinnyWorkspacePool {
 public:
  SkinnyWorkspacePool(int slots = 8, std::size_t slot_bytes = std::size_t{8} << 20, int capture_slots = 8);
  struct Lease {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    int slot = -1;         // >= 0: a stream slot; -1: on-demand
    bool capture = false;  // a capture slot
  };
  Lease acquire(port::Stream& stream, std::size_t bytes);
  // Counters of every live slot and on-demand buffer, for the zero-invariant check (synchronises the device).
  std::vector<std::int32_t> read_all_counters(std::size_t counter_bytes_per_slot);
  int on_demand_count() const;
  int stream_slots_used() const;

 private:
  std::mutex mu_;
  std::size_t slot_bytes_;
  std::vector<port::DeviceBuffer> slots_, capture_slots_;
  int next_capture_ = 0;
  std::map<const void*, int> slot_of_stream_;
  std::map<const void*, std::unique_ptr<port::DeviceBuffer>> on_demand_;
  std::vector<std::unique_ptr<port::DeviceBuffer>> retired_;  // outgrown on-demand buffers (graphs may hold them)
};

// Launch through a pool (or, for the static_shared_workspace variant, through one process-wide workspace).
void run_skinny_gemm(const SkinnyPlan& plan, const SkinnyBuffers& io, SkinnyWorkspacePool& pool,
                     port::Stream& stream);

// The static shared workspace the buggy variant uses (for tests inspecting it); created on first use.
port::DeviceBuffer& static_shared_workspace();

}  // namespace dsv4::kernels::skinny
