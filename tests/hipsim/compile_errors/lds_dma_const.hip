// global_load_lds from a pointer to const: clang-22 refuses it (the source is `void __global *`), so hipsim must
// refuse it at the call's line too (tests/hipsim/CMakeLists.txt checks the message).
#include <hip/hip_runtime.h>

__global__ void from_const(const int* src) {
  __shared__ int tile[64];
  __builtin_amdgcn_global_load_lds(src + threadIdx.x, tile, 4, 0, 0);
}
