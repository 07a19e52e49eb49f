// A launch asking for more LDS than the arch has must fail naming the numbers, whether the excess is static
// (`__shared__` arrays) or dynamic (the launch's byte count). Argument: "static" or "dynamic"; built for gfx942
// (64 KiB per workgroup). Prints the error the launch returned.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void big_static(float* out) {
  __shared__ float tile[17000];  // 68000 B
  tile[threadIdx.x] = float(threadIdx.x) + 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}

__global__ void big_dynamic(float* out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = float(threadIdx.x) + 1.0f;
  __syncthreads();
  out[threadIdx.x] = dyn[63 - threadIdx.x];
}

int main(int argc, char** argv) {
  const bool dynamic = argc > 1 && std::strcmp(argv[1], "dynamic") == 0;
  float* d = nullptr;
  hipMalloc(&d, 64 * sizeof(float));
  if (dynamic) big_dynamic<<<1, 64, 70000>>>(d);
  else big_static<<<1, 64>>>(d);
  const hipError_t e = hipDeviceSynchronize();
  std::printf("%s launch: %s\n", dynamic ? "dynamic" : "static", hipGetErrorName(e));
  hipFree(d);
  return e == hipSuccess ? 1 : 0;
}
