// An fp8 MFMA (16x16x32 fp8 x fp8) and the i8 16x16x32 in a file built for gfx90a, which has neither: hipsim must
// refuse each at compile time, naming the builtin, the line and the arch, as clang does for the fp8 one ("needs target
// feature fp8-insts"; the i8 one clang takes and then fails to select in its backend; tests/hipsim/CMakeLists.txt
// checks the messages). The same file builds for gfx942.
#include <hip/hip_runtime.h>

typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef int intx4 __attribute__((ext_vector_type(4)));

__global__ void tile(const long* a, const long* b, floatx4* d, intx4* n) {
  const int l = threadIdx.x;
  d[l] = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a[l], b[l], d[l], 0, 0, 0);
  n[l] = __builtin_amdgcn_mfma_i32_16x16x32_i8(a[l], b[l], n[l], 0, 0, 0);
}
