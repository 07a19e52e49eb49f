// A kernel with a constant ds_swizzle pattern past the instruction's 16-bit offset field (0x1C060): hipsim must
// refuse it at compile time at the call's line (tests/hipsim/CMakeLists.txt checks it).
#include <hip/hip_runtime.h>

__global__ void rotate(int* x) {
  const int l = threadIdx.x;
  x[l] = __builtin_amdgcn_ds_swizzle(x[l], 0x1C060);
}
