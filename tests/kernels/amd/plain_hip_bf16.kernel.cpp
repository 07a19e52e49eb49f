// AMD compile-check fixture (compiled for AMD only, never run): a plain-HIP kernel as tests/hipsim writes them, with
// <hip/hip_runtime.h> and <hip/hip_bf16.h> and no kernels/port header, so the build proves that such kernels compile
// for gfx90a/gfx942/gfx950 with Debian's HIP 5.2 headers (which lack hip_bf16.h: kernels/backend/hip/compat).
// y[i] = a * x[i] + y[i] in bfloat16, float accumulation, staged through 4 KiB of LDS.
#include <hip/hip_bf16.h>
#include <hip/hip_runtime.h>

__global__ void __launch_bounds__(256) amd_fixture_plain_bf16_axpy(float a, const __hip_bfloat16* x,
                                                                   __hip_bfloat16* y, int n) {
  __shared__ __hip_bfloat16 stage[2048];
  const int base = blockIdx.x * 2048;
  for (int i = threadIdx.x; i < 2048; i += blockDim.x)
    stage[i] = base + i < n ? x[base + i] : __float2bfloat16(0.0f);
  __syncthreads();
  for (int i = threadIdx.x; i < 2048 && base + i < n; i += blockDim.x)
    y[base + i] = __float2bfloat16(a * __bfloat162float(stage[i]) + __bfloat162float(y[base + i]));
}
