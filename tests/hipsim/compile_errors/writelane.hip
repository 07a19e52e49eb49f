// clang-22 has no __builtin_amdgcn_writelane (V_WRITELANE_B32 is inline asm only there): hipsim must refuse a call
// at compile time, naming the builtin and the line, instead of running a kernel that real HIP does not compile.
// tests/hipsim/CMakeLists.txt checks hipsim and, where the AMD toolchain exists, clang-22 itself.
#include <hip/hip_runtime.h>

__global__ void put(int* d, int lane) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_writelane(7, lane, d[l]);
}
