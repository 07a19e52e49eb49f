// The block tree sum of block_sum.hip written against kernels/port (the suite's own kernel style) for
// bench_hipsim_vs_port: the same algorithm and launch, on the existing sim path (g++, checked LDS handles).
#include "bench/hipsim/port_block_sum.hpp"

#include "kernels/port/hip_port.hpp"

namespace {
__global__ void port_block_sum(const float* x, float* out, int cols) {
  DSV4_LDS_DYNAMIC(float, buf);
  const int tid = threadIdx.x;
  buf[tid] = tid < cols ? x[std::size_t(blockIdx.x) * cols + tid] : 0.0f;
  __syncthreads();
  for (int s = int(blockDim.x) / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] = buf[tid] + buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = buf[0];
}
}  // namespace

namespace dsv4::bench {

std::vector<float> run_port_block_sum(const std::vector<float>& x, int rows, int cols, int reps) {
  namespace port = dsv4::port;
  port::DeviceBuffer dx = port::DeviceBuffer::from_host<float>(x), dout(std::size_t(rows) * 4);
  const unsigned threads = 1024;
  for (int r = 0; r < reps; ++r) {
    port::launch(port_block_sum,
                 port::LaunchConfig{port::Dim3(unsigned(rows)), port::Dim3(threads), threads * 4, nullptr,
                                    "port_block_sum",
                                    {port::reads(dx.data(), dx.bytes(), "x"), port::writes(dout.data(), dout.bytes(), "out")}},
                 dx.as<const float>(), dout.as<float>(), cols);
  }
  port::device_synchronize();
  return dout.to_host<float>();
}

}  // namespace dsv4::bench
