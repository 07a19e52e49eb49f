// A kernel with a constant dpp_ctrl that is no gfx9 DPP control (0x131 is reserved): hipsim must refuse it at
// compile time at the call's line (tests/hipsim/CMakeLists.txt checks the message).
#include <hip/hip_runtime.h>

__global__ void shift(int* x) {
  const int l = threadIdx.x;
  x[l] = __builtin_amdgcn_mov_dpp(x[l], 0x131, 0xF, 0xF, true);
}
