// AMD budget-check fixture (compiled for AMD only, never run): 48 KiB of static LDS (12288 floats). The compiler
// accepts it (48 KiB <= 64 KiB); with the 32 KiB of dynamic LDS the test says its plan launches with, the total
// (80 KiB) is over the gfx90a/gfx942 capacity of 64 KiB, which only a check that adds the plan's dynamic LDS sees.
#include "kernels/port/hip_port.hpp"

__global__ void __launch_bounds__(256) amd_fixture_lds_over_budget(const float* in, float* out) {
  DSV4_LDS(float, big, 12288);
  DSV4_LDS_DYNAMIC(float, dyn);
  const int t = threadIdx.x;
  for (int i = t; i < 12288; i += 256) big[i] = in[i];
  dyn[t] = in[t];
  __syncthreads();
  out[t] = big[(t * 48) % 12288] + big[12287 - t] + dyn[(t + 1) % 256];
}
