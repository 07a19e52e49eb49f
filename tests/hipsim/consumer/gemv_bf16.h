// The launcher of gemv_bf16.hip: y[m] = Σ_k w[m,k]·x[k] (bf16 in and out, fp32 accumulation, one rounding).
// w is [M, K] row-major, x is [K], y is [M]; all device pointers from hipMalloc.
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

hipError_t launch_gemv_bf16(const __hip_bfloat16* w, const __hip_bfloat16* x, __hip_bfloat16* y, int M, int K,
                            hipStream_t stream);
