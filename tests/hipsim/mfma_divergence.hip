// An MFMA that the lanes of one wave reach at two different call sites (a branch on the lane id): a whole-wave
// instruction executed divergently, which must be reported as wave_divergence naming both sites
// (tests/hipsim/CMakeLists.txt checks the report).
#include <hip/hip_runtime.h>

#include <cstdio>

typedef short short4_t __attribute__((ext_vector_type(4)));
typedef float floatx4 __attribute__((ext_vector_type(4)));

__global__ void split_wave(floatx4* d) {
  const int l = threadIdx.x;
  const short4_t a = {0x3f80, 0x4000, 0x4040, 0x4080};  // bf16 1, 2, 3, 4
  const floatx4 c = {1, 2, 3, 4};
  if (l < 32)
    d[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, a, c, 0, 0, 0);
  else
    d[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, a, c, 0, 0, 0);
}

int main() {
  floatx4* d = nullptr;
  hipMalloc(&d, 64 * sizeof(floatx4));
  split_wave<<<1, 64>>>(d);
  hipDeviceSynchronize();
  hipFree(d);
  return 0;
}
