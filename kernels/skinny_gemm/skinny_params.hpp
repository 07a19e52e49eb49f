// The skinny GEMM kernels' parameters as the host fills them (skinny_launch.cpp, kernel_params) and the kernels read
// them (skinny_device.hpp). Plain data, host and device.
#pragma once

#include <cstdint>

namespace dsv4::kernels::skinny::detail {

// The parameters of the portable kernel; the sm_90 kernels extend them (kernels/nvidia/skinny_gemm/sm90_device.hpp).
struct KParams {
  const std::uint16_t* a;
  const std::uint16_t* b;
  const std::uint16_t* bias;
  std::uint16_t* out;
  int* counters;
  float* partials;
  int n, m, k, lda;
  int bias_kind;  // 0 none, 1 [M] or [1,M], 2 [N,M]
  int n_p2, tile_m, k_groups, k_chunk, chunks_per_shard, k_rnd, tiles_m, batch_shards;
  int n_slices, slice_rows;  // output-row slices (1 and n_p2 unless a plan slices the rows): see TileRef
  int pass_outs;   // readback: outputs per pass (whole N-tiles, <= 16 per thread)
  int lds_floats;  // readback staging array length (the whole allocation)
  // log2 of tile_m and of the readback N-tile, rows_per_n_tile * tile_m (SkinnyKernelArgs): the epilogues index
  // without divisions, which cost as much as the stores themselves in a latency-bound epilogue.
  int tm_shift, stage_shift;
};
using KernelFn = void (*)(KParams);

}  // namespace dsv4::kernels::skinny::detail
