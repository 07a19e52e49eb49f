// A 16-byte global_load_lds compiled for gfx942, which has only the 1-, 2- and 4-byte forms: hipsim must refuse it at
// the call's line, as clang-22 does (tests/hipsim/CMakeLists.txt checks the message).
#include <hip/hip_runtime.h>

__global__ void wide(int* src) {
  __shared__ int tile[256];
  const int t = threadIdx.x;
  __builtin_amdgcn_global_load_lds(src + 4 * t, tile, 16, 0, 0);
}
