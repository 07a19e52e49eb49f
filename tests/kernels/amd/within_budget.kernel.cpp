// AMD budget-check fixture (compiled for AMD only, never run): a kernel within every gfx90a/gfx942 budget.
// Static LDS through the port layer: 1024 floats = 4096 bytes (the test expects exactly that in the code object);
// the test launches it with 16 KiB of dynamic LDS (total 20 KiB <= 64 KiB) and 256 threads.
#include "kernels/port/hip_port.hpp"

__global__ void __launch_bounds__(256) amd_fixture_within_budget(const float* in, float* out, int n) {
  DSV4_LDS(float, tile, 1024);
  DSV4_LDS_DYNAMIC(float, dyn);
  const int t = threadIdx.x;
  for (int i = t; i < 1024; i += 256) tile[i] = in[blockIdx.x * 1024 + i];
  dyn[t] = in[t] * 2.f;
  __syncthreads();
  float acc = 0.f;
  for (int i = 0; i < 4; ++i) acc += tile[(t * 4 + i * 97) % 1024];
  if (blockIdx.x * 256 + t < n) out[blockIdx.x * 256 + t] = acc + dyn[255 - t];
}
