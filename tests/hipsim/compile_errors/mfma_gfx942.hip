// gfx950-only MFMAs (16x16x32 bf16, the scaled 32x32x64 f8f6f4, the i8 16x16x64) in a file built for gfx942: hipsim must refuse each
// at compile time, naming the builtin and the line, as clang does ("needs target feature gfx950-insts";
// tests/hipsim/CMakeLists.txt checks it).
#include <hip/hip_runtime.h>

typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef int intx4 __attribute__((ext_vector_type(4)));
typedef int intx8 __attribute__((ext_vector_type(8)));

__global__ void tile(const bf16x8* a, const bf16x8* b, floatx4* d, const intx8* q, floatx16* e, intx4* n) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a[l], b[l], d[l], 0, 0, 0);
  e[l] = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(q[l], q[l], e[l], 2, 3, 0, 127, 1, 127);
  n[l] = __builtin_amdgcn_mfma_i32_16x16x64_i8(n[l], n[l], n[l], 0, 0, 0);
}
