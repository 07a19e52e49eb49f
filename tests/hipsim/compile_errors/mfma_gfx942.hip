// A gfx950-only MFMA (16x16x32 bf16) in a file built for gfx942: hipsim must refuse it at compile time, naming the
// builtin and the line, as clang does ("needs target feature gfx950-insts"; tests/hipsim/CMakeLists.txt checks it).
#include <hip/hip_runtime.h>

typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx4 __attribute__((ext_vector_type(4)));

__global__ void tile(const bf16x8* a, const bf16x8* b, floatx4* d) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a[l], b[l], d[l], 0, 0, 0);
}
