// AMD budget-check fixture (compiled only by the ctest that expects it to fail): 96 KiB of static LDS (24576
// floats) is above the 64 KiB gfx942 limit, so clang refuses the kernel ("local memory (98304) exceeds limit
// (65536)"); no gfx942 code object with it can exist. On gfx950 (160 KiB) it would be within budget.
#include "kernels/port/hip_port.hpp"

__global__ void __launch_bounds__(256) amd_fixture_lds_96k(const float* in, float* out) {
  DSV4_LDS(float, huge, 24576);
  const int t = threadIdx.x;
  for (int i = t; i < 24576; i += 256) huge[i] = in[i];
  __syncthreads();
  out[t] = huge[(t * 96) % 24576] + huge[24575 - t];
}
