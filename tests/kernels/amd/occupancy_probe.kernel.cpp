// AMD budget-check fixture (compiled for AMD only, never run): kernels whose VGPR, LDS and workgroup-size limits
// differ, so the test can compare dsv4check's occupancy estimate with the compiler's own figure (the
// -Rpass-analysis=kernel-resource-usage remark "Occupancy [waves/SIMD]") kernel by kernel.
#include "kernels/port/hip_port.hpp"

// Many live values, all indices compile-time after unrolling (no scratch): VGPR-limited.
__global__ void __launch_bounds__(256) amd_fixture_occ_vgpr(const float4* in, float4* out) {
  float4 v[24];
#pragma unroll
  for (int i = 0; i < 24; ++i) v[i] = in[threadIdx.x + i * 256];
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
  for (int r = 1; r < 24; ++r)
#pragma unroll
    for (int i = 0; i < 24; ++i) {
      acc.x += v[i].x * v[(i + r) % 24].y;
      acc.y += v[i].y * v[(i + r) % 24].z;
      acc.z += v[i].z * v[(i + r) % 24].w;
      acc.w += v[i].w * v[(i + r) % 24].x;
    }
  out[threadIdx.x] = acc;
}

// 20 KiB static LDS, 128 threads: LDS-limited (3 workgroups per CU).
__global__ void __launch_bounds__(128) amd_fixture_occ_lds(const float* in, float* out) {
  DSV4_LDS(float, tile, 5120);
  for (int i = threadIdx.x; i < 5120; i += 128) tile[i] = in[i];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x * 40) % 5120];
}

// 1024 threads, 8 KiB LDS: sixteen waves per workgroup.
__global__ void __launch_bounds__(1024) amd_fixture_occ_wide(const float* in, float* out) {
  DSV4_LDS(float, tile, 2048);
  tile[threadIdx.x] = in[threadIdx.x];
  tile[threadIdx.x + 1024] = in[threadIdx.x + 1024];
  __syncthreads();
  out[threadIdx.x] = tile[2047 - threadIdx.x] + tile[threadIdx.x ^ 1];
}
