// MFMA modifiers the instruction does not take: a non-zero BLGP on a single-block MFMA and an ABID not below
// 2^CBSZ on the 4x4x4 form. hipsim must refuse both at compile time, naming the builtin and the line
// (tests/hipsim/CMakeLists.txt checks the messages).
#include <hip/hip_runtime.h>

typedef short short4_t __attribute__((ext_vector_type(4)));
typedef float floatx4 __attribute__((ext_vector_type(4)));

__global__ void tiles(const short4_t* a, floatx4* d) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a[l], a[l], d[l], 0, 0, 2);
  d[l] = __builtin_amdgcn_mfma_f32_4x4x4bf16_1k(a[l], a[l], d[l], 1, 2, 0);
}
