// An MFMA in a block of 32 threads: the instruction reads the registers of all 64 lanes of the wave, which the sim
// does not have, so it must be reported (kernel_exception naming the builtin) and the launch must fail, never
// compute with made-up registers (tests/hipsim/CMakeLists.txt checks the report).
#include <hip/hip_runtime.h>

#include <cstdio>

typedef short short4_t __attribute__((ext_vector_type(4)));
typedef float floatx4 __attribute__((ext_vector_type(4)));

__global__ void half_wave(floatx4* d) {
  const int l = threadIdx.x;
  const short4_t a = {0x3f80, 0x4000, 0x4040, 0x4080};  // bf16 1, 2, 3, 4
  const floatx4 c = {1, 2, 3, 4};
  d[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, a, c, 0, 0, 0);
}

int main() {
  floatx4* d = nullptr;
  hipMalloc(&d, 64 * sizeof(floatx4));
  half_wave<<<1, 32>>>(d);
  const hipError_t e = hipDeviceSynchronize();
  std::printf("%s hipDeviceSynchronize: %s\n", e == hipErrorLaunchFailure ? "ok" : "FAIL", hipGetErrorName(e));
  hipFree(d);
  return 0;
}
