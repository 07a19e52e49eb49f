// An inline asm instruction the sim does not model (a packed FMA): the source rewrite must refuse it naming the file,
// the line and the asm string (tests/hipsim/CMakeLists.txt checks the message).
#include <hip/hip_runtime.h>

__global__ void packed(float* x) {
  float r;
  asm volatile("v_pk_fma_f32 %0, %1, %2, %3" : "=v"(r) : "v"(x[0]), "v"(x[1]), "v"(x[2]));
  x[threadIdx.x] = r;
}
