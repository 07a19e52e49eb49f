// Test kernel of kernels/nvidia/port/wgmma.hpp: operands copied into swizzled K-major LDS tiles exactly as the layout
// comment there says, four wgmma_m64k16 calls over K = 64, the accumulators scattered back to row-major.
#include "kernels/port/hip_port.hpp"
#include "kernels/nvidia/port/mma.hpp"
#include "kernels/nvidia/port/wgmma.hpp"
#include "tests/kernels/nvidia/port/wgmma_test_kernel.hpp"

namespace dsv4::test::wgmmak {

#if !defined(DSV4_BACKEND_HIP)
namespace {

template <port::MmaElem E, int N>
__global__ void wgmma_kernel(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d,
                             int accumulate) {
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int skip = port::lds_align_skip(smem);
  auto tiles = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2, (64 + N) * 64, "wgmma_tiles");
  // Rows 0..63: A; rows 64..64+N-1: B (a 1 KiB-aligned tile of its own: 64 rows of 128 bytes precede it).
  for (int v = tid; v < (64 + N) * 8; v += 128) {
    const int r = v / 8, chunk = v % 8;
    const std::uint16_t* src = r < 64 ? a + r * 64 + chunk * 8 : b + (r - 64) * 64 + chunk * 8;
    uint4 x;
    x.x = static_cast<unsigned>(src[0]) | (static_cast<unsigned>(src[1]) << 16);
    x.y = static_cast<unsigned>(src[2]) | (static_cast<unsigned>(src[3]) << 16);
    x.z = static_cast<unsigned>(src[4]) | (static_cast<unsigned>(src[5]) << 16);
    x.w = static_cast<unsigned>(src[6]) | (static_cast<unsigned>(src[7]) << 16);
    port::lds_store_as<uint4>(tiles, port::swizzle128_byte(r, chunk) / 2, x);
  }
  port::lds_fence_for_mma();
  __syncthreads();
  const int w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
  auto row_of = [&](int j) { return 16 * w + g + 8 * ((j % 4) / 2); };
  auto col_of = [&](int j) { return 8 * (j / 4) + 2 * t + j % 2; };
  float acc[N / 2];
  for (int j = 0; j < N / 2; ++j) acc[j] = c[row_of(j) * N + col_of(j)];
  port::wgmma_pin(acc);
  port::wgmma_fence();
  for (int k16 = 0; k16 < 4; ++k16)
    port::wgmma_m64k16<E, N>(acc, tiles, 0, tiles, 64 * 64, k16, (accumulate & 1) || k16 > 0);
  port::wgmma_commit();
  if (accumulate & 2) {  // zero_b_before_wait
    for (int v = tid; v < N * 8; v += 128) port::lds_store_as<uint4>(tiles, 64 * 64 + v * 8, make_uint4(0, 0, 0, 0));
    __syncthreads();
  }
  port::wgmma_wait<0>();
  port::wgmma_pin(acc);
  for (int j = 0; j < N / 2; ++j) d[row_of(j) * N + col_of(j)] = acc[j];
}

template <port::MmaElem E>
void launch_n(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d, int n, int mode,
              const port::LaunchConfig& cfg) {
  const int acc = mode;  // bit 0: accumulate, bit 1: zero B before the wait
  switch (n) {
    case 8: return port::launch(&wgmma_kernel<E, 8>, cfg, a, b, c, d, acc);
    case 16: return port::launch(&wgmma_kernel<E, 16>, cfg, a, b, c, d, acc);
    case 32: return port::launch(&wgmma_kernel<E, 32>, cfg, a, b, c, d, acc);
    case 64: return port::launch(&wgmma_kernel<E, 64>, cfg, a, b, c, d, acc);
    case 128: return port::launch(&wgmma_kernel<E, 128>, cfg, a, b, c, d, acc);
    default: throw port::Error("wgmma_tile: n=" + std::to_string(n) + " is not 8, 16, 32, 64 or 128");
  }
}

}  // namespace
#endif

void wgmma_tile(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d, int n, bool f16,
                bool accumulate, port::Stream& s, bool zero_b_before_wait) {
#if defined(DSV4_BACKEND_HIP)
  (void)a, (void)b, (void)c, (void)d, (void)n, (void)f16, (void)accumulate, (void)s, (void)zero_b_before_wait;
  throw port::Error("wgmma_tile: the warpgroup MMA exists on cuda (sm_90) and sim only");
#else
  const std::size_t lds = static_cast<std::size_t>(64 + n) * 128 + port::kSwizzle128Align;
  port::LaunchConfig cfg{port::Dim3(1), port::Dim3(128), lds, &s, "wgmma_m64k16_test",
                         {port::reads(a, 64 * 64 * 2, "a"), port::reads(b, static_cast<std::size_t>(n) * 64 * 2, "b"),
                          port::reads(c, static_cast<std::size_t>(64) * n * 4, "c"),
                          port::writes(d, static_cast<std::size_t>(64) * n * 4, "d")}};
  const int mode = (accumulate ? 1 : 0) | (zero_b_before_wait ? 2 : 0);
  if (f16) launch_n<port::MmaElem::f16>(a, b, c, d, n, mode, cfg);
  else launch_n<port::MmaElem::bf16>(a, b, c, d, n, mode, cfg);
#endif
}

}  // namespace dsv4::test::wgmmak
