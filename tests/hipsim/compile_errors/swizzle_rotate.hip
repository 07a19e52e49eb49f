// A kernel with a constant ds_swizzle pattern in the gfx9 rotate mode (0xC060 = swizzle(ROTATE,0,3)), which the sim
// does not model: hipsim must refuse it at compile time at the call's line (tests/hipsim/CMakeLists.txt checks it).
#include <hip/hip_runtime.h>

__global__ void rotate(int* x) {
  const int l = threadIdx.x;
  x[l] = __builtin_amdgcn_ds_swizzle(x[l], 0xC060);
}
