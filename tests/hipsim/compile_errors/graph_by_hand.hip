// A harness that builds a graph by hand (hipGraphCreate, not stream capture): hipsim must refuse it at compile time,
// naming the call and the line (tests/hipsim/CMakeLists.txt checks the message).
#include <hip/hip_runtime.h>

__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }

int main() {
  float* x = nullptr;
  hipGraph_t g = nullptr;
  hipMalloc(&x, 64 * sizeof(float));
  hipGraphCreate(&g, 0);
  return 0;
}
