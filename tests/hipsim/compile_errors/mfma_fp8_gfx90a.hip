// An fp8 MFMA (16x16x32 fp8 x fp8) in a file built for gfx90a, which has no fp8 instructions: hipsim must refuse it
// at compile time, naming the builtin, the line and the arch, as clang does ("needs target feature fp8-insts";
// tests/hipsim/CMakeLists.txt checks it). The same file builds for gfx942.
#include <hip/hip_runtime.h>

typedef float floatx4 __attribute__((ext_vector_type(4)));

__global__ void tile(const long* a, const long* b, floatx4* d) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a[l], b[l], d[l], 0, 0, 0);
}
