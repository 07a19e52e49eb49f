// A harness that captures a launch into a graph: hipsim must refuse it at compile time, naming the call and the line
// (tests/hipsim/CMakeLists.txt checks the message).
#include <hip/hip_runtime.h>

__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }

int main() {
  float* x = nullptr;
  hipStream_t s = nullptr;
  hipGraph_t g = nullptr;
  hipMalloc(&x, 64 * sizeof(float));
  hipStreamCreate(&s);
  hipStreamBeginCapture(s, hipStreamCaptureModeGlobal);
  hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, s, x, 2.0f);
  hipStreamEndCapture(s, &g);
  return 0;
}
