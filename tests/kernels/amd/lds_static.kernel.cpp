// AMD budget-check fixture (compiled only by the ctests amd.compile.lds_*): AMD_FIXTURE_LDS_FLOATS floats of static
// LDS (default 24576 = 96 KiB). At exactly the arch's capacity clang accepts it; above it clang refuses the kernel
// ("local memory (N) exceeds limit (capacity)"), so no code object over the limit can exist.
#include "kernels/port/hip_port.hpp"

#ifndef AMD_FIXTURE_LDS_FLOATS
#define AMD_FIXTURE_LDS_FLOATS 24576
#endif

__global__ void __launch_bounds__(256) amd_fixture_lds_static(const float* in, float* out) {
  constexpr int n = AMD_FIXTURE_LDS_FLOATS;
  DSV4_LDS(float, huge, n);
  const int t = threadIdx.x;
  for (int i = t; i < n; i += 256) huge[i] = in[i];
  __syncthreads();
  out[t] = huge[(t * 96) % n] + huge[n - 1 - t];
}
