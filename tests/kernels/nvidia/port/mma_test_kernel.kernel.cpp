// Test kernel of kernels/nvidia/port/mma.hpp: fragments gathered from plain row-major matrices exactly as the layout
// comment there says, one mma_m16n8k16 per 32-lane group, the D fragment scattered back to row-major.
#include "kernels/port/hip_port.hpp"
#include "kernels/nvidia/port/mma.hpp"
#include "tests/kernels/nvidia/port/mma_test_kernel.hpp"

namespace dsv4::test::mmak {
namespace {

__device__ __forceinline__ std::uint32_t pack(std::uint16_t lo, std::uint16_t hi) {
  return static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 16);
}

template <port::MmaElem E>
__global__ void mma_kernel(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d) {
  const int tid = static_cast<int>(threadIdx.x);
  const int grp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const std::uint16_t* A = a + grp * 256;
  const std::uint16_t* B = b + grp * 128;
  const float* C = c + grp * 128;
  float* D = d + grp * 128;
  const std::uint32_t fa[4] = {pack(A[g * 16 + 2 * t], A[g * 16 + 2 * t + 1]),
                               pack(A[(g + 8) * 16 + 2 * t], A[(g + 8) * 16 + 2 * t + 1]),
                               pack(A[g * 16 + 2 * t + 8], A[g * 16 + 2 * t + 9]),
                               pack(A[(g + 8) * 16 + 2 * t + 8], A[(g + 8) * 16 + 2 * t + 9])};
  const std::uint32_t fb[2] = {pack(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]),
                               pack(B[(2 * t + 8) * 8 + g], B[(2 * t + 9) * 8 + g])};
  float acc[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t], C[(g + 8) * 8 + 2 * t + 1]};
  port::mma_m16n8k16<E>(acc, fa, fb);
  D[g * 8 + 2 * t] = acc[0];
  D[g * 8 + 2 * t + 1] = acc[1];
  D[(g + 8) * 8 + 2 * t] = acc[2];
  D[(g + 8) * 8 + 2 * t + 1] = acc[3];
}

}  // namespace

void mma_groups(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d, int threads, bool f16,
                port::Stream& s) {
  const int groups = threads / 32;
  port::LaunchConfig cfg{port::Dim3(1), port::Dim3(static_cast<unsigned>(threads)), 0, &s, "mma_m16n8k16_test",
                         {port::reads(a, groups * 256 * 2, "a"), port::reads(b, groups * 128 * 2, "b"),
                          port::reads(c, groups * 128 * 4, "c"), port::writes(d, groups * 128 * 4, "d")}};
  if (f16) port::launch(&mma_kernel<port::MmaElem::f16>, cfg, a, b, c, d);
  else port::launch(&mma_kernel<port::MmaElem::bf16>, cfg, a, b, c, d);
}

}  // namespace dsv4::test::mmak
