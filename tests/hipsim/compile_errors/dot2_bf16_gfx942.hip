// fdot2_f32_bf16 (V_DOT2_F32_BF16) is gfx950's: in a file built for gfx942 hipsim must refuse it at compile time,
// naming the builtin and the line, as clang-22 does ("needs target feature dot12-insts"); built for gfx950 it
// compiles. tests/hipsim/CMakeLists.txt checks hipsim and, where the AMD toolchain exists, clang-22 itself.
#include <hip/hip_runtime.h>

typedef __bf16 bf16x2 __attribute__((ext_vector_type(2)));

__global__ void dot(const bf16x2* a, const bf16x2* b, float* d) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_fdot2_f32_bf16(a[l], b[l], d[l], false);
}
