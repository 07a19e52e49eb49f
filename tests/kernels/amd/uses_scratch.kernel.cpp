// AMD budget-check fixture (compiled for AMD only, never run): a per-thread array indexed by a run-time value
// cannot live in registers, so the compiler puts it in scratch (private segment > 0). The check must flag it,
// since every kernel promises no scratch unless allowed.
#include "kernels/port/hip_port.hpp"

__global__ void __launch_bounds__(64) amd_fixture_uses_scratch(const float* in, float* out, int k) {
  float a[96];
  for (int i = 0; i < 96; ++i) a[i] = in[i * k + threadIdx.x];
  out[threadIdx.x] = a[(threadIdx.x * 7 + k) % 96];
}
