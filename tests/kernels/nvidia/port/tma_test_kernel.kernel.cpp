// Test kernels of kernels/nvidia/port/tma.hpp: two bulk copies through one transaction barrier (phases 0 and 1), and one
// copy of several panels; each tile read back through the swizzle rule of kernels/nvidia/port/wgmma.hpp.
#include "kernels/port/hip_port.hpp"
#include "kernels/nvidia/port/tma.hpp"
#include "kernels/nvidia/port/wgmma.hpp"
#include "tests/kernels/nvidia/port/tma_test_kernel.hpp"

namespace dsv4::test::tmak {

#if !defined(DSV4_BACKEND_HIP)
namespace {

__global__ void tma_kernel(const DSV4_GRID_CONSTANT port::TensorMap2d map, int box_rows, int col, int row, int col2,
                           int row2, std::uint16_t* out, std::uint16_t* out2, int misuse) {
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int skip = port::lds_align_skip(smem);
  auto tile = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2, box_rows * 64, "tma_tile");
  auto bars = port::lds_carve<std::uint64_t>(smem, static_cast<std::size_t>(skip) * 2 + box_rows * 128, 1, "tma_bar");
  if (tid == 0) {
    port::mbarrier_init(bars, 0, 1);
    port::mbarrier_init_fence();
  }
  __syncthreads();
  for (int phase = 0; phase < 2; ++phase) {
    if (tid == 0) {
      port::mbarrier_arrive_expect_tx(bars, 0, static_cast<unsigned>(box_rows) * 128 + (misuse == 2 ? 128u : 0u));
      port::tma_load_2d(tile, 0, map, phase ? col2 : col, phase ? row2 : row, bars, 0);
    }
    port::mbarrier_wait(bars, 0, misuse == 1 ? phase ^ 1 : phase);
    if (misuse != 3) __syncthreads();  // not needed: the wait orders the copy before the reads
    std::uint16_t* dst = phase ? out2 : out;
    for (int v = tid; v < box_rows * 8; v += static_cast<int>(blockDim.x)) {
      const int r = v / 8, c = v % 8;
      const uint4 x = port::lds_load_as<uint4>(tile, port::swizzle128_byte(r, c) / 2);
      const unsigned w[4] = {x.x, x.y, x.z, x.w};
      for (int e = 0; e < 4; ++e) {
        dst[r * 64 + c * 8 + 2 * e] = static_cast<std::uint16_t>(w[e] & 0xffffu);
        dst[r * 64 + c * 8 + 2 * e + 1] = static_cast<std::uint16_t>(w[e] >> 16);
      }
    }
    if (misuse != 4) __syncthreads();  // the tile is read before the next copy overwrites it
  }
  if (tid == 0) port::mbarrier_inval(bars, 0);
}

// One tma_load_panels of `panels` boxes (box_rows a multiple of 8: each panel's tile stays 1 KiB aligned), read
// back panel by panel: out[(q * box_rows + r) * 64 + j] = element j of row r of panel q. wrong_copy: tma_load_2d on
// the panel map instead (sim refuses it).
__global__ void tma_panels_kernel(const DSV4_GRID_CONSTANT port::TensorMap2d map, int box_rows, int panels, int row,
                                  int panel0, std::uint16_t* out, int wrong_copy) {
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int skip = port::lds_align_skip(smem);
  const int elems = panels * box_rows * 64;
  auto tile = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2, elems, "tma_panels");
  auto bars = port::lds_carve<std::uint64_t>(smem, static_cast<std::size_t>(skip) * 2 + elems * 2, 1, "tma_bar");
  if (tid == 0) {
    port::mbarrier_init(bars, 0, 1);
    port::mbarrier_init_fence();
  }
  __syncthreads();
  if (tid == 0) {
    port::mbarrier_arrive_expect_tx(bars, 0, static_cast<unsigned>(elems) * 2);
    if (wrong_copy) port::tma_load_2d(tile, 0, map, panel0 * 64, row, bars, 0);
    else port::tma_load_panels(tile, 0, map, row, panel0, bars, 0);
  }
  port::mbarrier_wait(bars, 0, 0);
  for (int v = tid; v < panels * box_rows * 8; v += static_cast<int>(blockDim.x)) {
    const int q = v / (box_rows * 8), r = (v / 8) % box_rows, c = v % 8;
    const uint4 x = port::lds_load_as<uint4>(tile, q * box_rows * 64 + port::swizzle128_byte(r, c) / 2);
    const unsigned w[4] = {x.x, x.y, x.z, x.w};
    for (int e = 0; e < 4; ++e) {
      out[(q * box_rows + r) * 64 + c * 8 + 2 * e] = static_cast<std::uint16_t>(w[e] & 0xffffu);
      out[(q * box_rows + r) * 64 + c * 8 + 2 * e + 1] = static_cast<std::uint16_t>(w[e] >> 16);
    }
  }
  __syncthreads();
  if (tid == 0) port::mbarrier_inval(bars, 0);
}

}  // namespace
#endif

void load_panels(const port::TensorMap2d& map, int box_rows, int panels, int row, int panel0, std::uint16_t* out,
                 port::Stream& s, bool wrong_copy) {
#if defined(DSV4_BACKEND_HIP)
  (void)map, (void)box_rows, (void)panels, (void)row, (void)panel0, (void)out, (void)s, (void)wrong_copy;
  throw port::Error("load_panels: bulk tensor copies exist on cuda (sm_90) and sim only");
#else
  const std::size_t bytes = static_cast<std::size_t>(panels) * box_rows * 128;
  port::LaunchConfig cfg{port::Dim3(1), port::Dim3(128), bytes + 8 + port::kSwizzle128Align, &s, "tma_load_panels_test",
                         {port::writes(out, bytes, "out")}};
  port::launch(&tma_panels_kernel, cfg, map, box_rows, panels, row, panel0, out, wrong_copy ? 1 : 0);
#endif
}

void load_box(const port::TensorMap2d& map, int box_rows, int col, int row, int col2, int row2, std::uint16_t* out,
              std::uint16_t* out2, port::Stream& s, int misuse) {
#if defined(DSV4_BACKEND_HIP)
  (void)map, (void)box_rows, (void)col, (void)row, (void)col2, (void)row2, (void)out, (void)out2, (void)s, (void)misuse;
  throw port::Error("load_box: bulk tensor copies exist on cuda (sm_90) and sim only");
#else
  const std::size_t lds = static_cast<std::size_t>(box_rows) * 128 + 8 + port::kSwizzle128Align;
  const std::size_t bytes = static_cast<std::size_t>(box_rows) * 128;
  port::LaunchConfig cfg{port::Dim3(1), port::Dim3(128), lds, &s, "tma_load_2d_test",
                         {port::writes(out, bytes, "out"), port::writes(out2, bytes, "out2")}};
  port::launch(&tma_kernel, cfg, map, box_rows, col, row, col2, row2, out, out2, misuse);
#endif
}

}  // namespace dsv4::test::tmak
