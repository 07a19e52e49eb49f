// MFMA modifiers the instruction does not take: a non-zero BLGP on a single-block MFMA, an ABID not below 2^CBSZ on
// the 4x4x4 form, and an A format the scaled MFMA does not have (cbsz 5; CDNA4 ISA guide 7.1.5: 0-4). hipsim must refuse
// each at compile time, naming the builtin and the line (tests/hipsim/CMakeLists.txt checks the messages).
#include <hip/hip_runtime.h>

typedef short short4_t __attribute__((ext_vector_type(4)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef int intx8 __attribute__((ext_vector_type(8)));

__global__ void tiles(const short4_t* a, const intx8* q, floatx4* d) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a[l], a[l], d[l], 0, 0, 2);
  d[l] = __builtin_amdgcn_mfma_f32_4x4x4bf16_1k(a[l], a[l], d[l], 1, 2, 0);
  d[l] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(q[l], q[l], d[l], 5, 0, 0, 127, 0, 127);
}
