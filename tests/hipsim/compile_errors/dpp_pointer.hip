// A kernel that moves a pointer through DPP: clang-22 rejects it (only integer and floating types of 1-8 bytes move
// through __builtin_amdgcn_mov_dpp), so hipsim must too, at the call's line (tests/hipsim/CMakeLists.txt checks it).
#include <hip/hip_runtime.h>

__global__ void shift(int** p) {
  const int l = threadIdx.x;
  p[l] = __builtin_amdgcn_mov_dpp(p[l], 0x111, 0xF, 0xF, true);
}
