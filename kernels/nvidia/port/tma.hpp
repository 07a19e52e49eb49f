// Portable bulk tensor copies global -> LDS with transaction barriers, the shape of sm_90 TMA
// (cp.async.bulk.tensor) and mbarrier. Include after kernels/port/hip_port.hpp, from kernel TUs only.
//   mbarrier_init(bars, i, count)             one thread: barrier i of the array (8 bytes each) expects `count`
//                                             arrivals per phase; then mbarrier_init_fence() and a block barrier
//   mbarrier_arrive_expect_tx(bars, i, bytes) the issuing thread's arrival, announcing `bytes` to come
//   mbarrier_arrive(bars, i)                  a plain arrival (release: the thread's earlier LDS accesses happen
//                                             before the accesses of whoever waits for the phase), e.g. consumers
//                                             handing a ring slot back to the thread that refills it
//   tma_load_2d(dst, elem, map, col, row, bars, i)  one thread: copy the box of `map` (kernels/port/runtime.hpp,
//                                             TensorMap2d) whose first element is (row, col) to dst + elem, a
//                                             1 KiB-aligned swizzled K-major tile (kernels/nvidia/port/swizzle.hpp:
//                                             box row r, 16-byte chunk c at r * 128 + ((c ^ (r % 8)) * 16));
//                                             elements outside the tensor arrive as zeros; completes on barrier i
//   mbarrier_wait(bars, i, parity)            every thread that reads the tile: wait for the phase with `parity`
//                                             (0, 1, 0, ... for its successive uses) to complete
//   mbarrier_inval(bars, i)                   one thread, before the LDS is reused for anything else
//   tma_load_panels(dst, elem, map, row, panel0, bars, i)  one thread: the `panels` boxes of a
//                                             make_tensor_map_panels map at rows row.., panels panel0.. (64-column
//                                             panels), landing one after another from dst + elem, each a box_rows x
//                                             64 swizzled tile as tma_load_2d leaves it: one instruction per stage
//   tma_prefetch_descriptor(map)              one thread, at kernel start: bring the map into the SM's
//                                             descriptor cache so the first copies do not wait for its fetch
// The kernel parameter holding the map must be DSV4_GRID_CONSTANT (the copy reads it in place).
// Backends:
//   cuda: the instructions; a wait that does not complete within ~2^28 polls traps (a lost copy or a wrong byte
//         count becomes a launch error instead of a hang). The poll loop is C++: a kernel that waits while
//         warpgroup MMAs are in flight gets them serialized by ptxas (C7517/C7518;
//         a poll loop inside one asm block avoids it). No kernel here waits with MMAs in flight.
//   sim : the copy happens at the call (global reads and swizzled LDS writes by the issuing thread, bounds- and
//         race-checked as its accesses) and then completes its bytes on the barrier. The barriers have their real
//         semantics (kernels/nvidia/backend/sim/mbarrier.cpp): a wait blocks the thread until the phase completes, so a
//         wait nobody completes (wrong parity, missing arrive_expect_tx, too many bytes announced) is reported as
//         a deadlock naming the wait. For the LDS race checker an arrival or a landed copy is a release and a
//         wait that returns an acquire (kernels/backend/sim/happens_before.hpp), so a producer/consumer ring with
//         no block barrier is checked access by access: a read not after its slot's full-barrier wait, or a refill
//         not after every reader's arrival on the slot's empty barrier, is a reported hazard.
//   hip : not provided (AMD has no TMA; make_tensor_map_2d refuses there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/nvidia/port/tensor_map.hpp"
#include "kernels/nvidia/port/swizzle.hpp"
#if defined(DSV4_BACKEND_SIM)
#include "kernels/nvidia/port/detail/tensor_map_fields.hpp"
#endif

#if defined(DSV4_BACKEND_CUDA)
#define DSV4_GRID_CONSTANT __grid_constant__
#else
#define DSV4_GRID_CONSTANT
#endif

namespace dsv4::port {

#if defined(DSV4_BACKEND_SIM)
namespace sim::detail {  // kernels/nvidia/backend/sim/mbarrier.cpp
void mbarrier_init(int array, std::int64_t byte_offset, int count);
void mbarrier_arrive_expect_tx(int array, std::int64_t byte_offset, unsigned bytes);
void mbarrier_arrive(int array, std::int64_t byte_offset);
void mbarrier_complete_tx(int array, std::int64_t byte_offset, unsigned bytes);
void mbarrier_wait(int array, std::int64_t byte_offset, int parity, const std::source_location& loc);
void mbarrier_inval(int array, std::int64_t byte_offset);
}  // namespace sim::detail
#endif

#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
namespace tma_detail {
__device__ __forceinline__ unsigned saddr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
}  // namespace tma_detail
#endif

__device__ __forceinline__ void mbarrier_init(lds_ptr<std::uint64_t> bars, int i, int count) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(tma_detail::saddr(bars + i)), "r"(count) : "memory");
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::mbarrier_init(bars.array(), bars.byte_offset() + std::int64_t(i) * 8, count);
#else
  (void)bars, (void)i, (void)count;
#endif
}

__device__ __forceinline__ void mbarrier_init_fence() {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void mbarrier_arrive_expect_tx(lds_ptr<std::uint64_t> bars, int i, unsigned bytes) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(tma_detail::saddr(bars + i)),
               "r"(bytes)
               : "memory");
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::mbarrier_arrive_expect_tx(bars.array(), bars.byte_offset() + std::int64_t(i) * 8, bytes);
#else
  (void)bars, (void)i, (void)bytes;
#endif
}

__device__ __forceinline__ void mbarrier_arrive(lds_ptr<std::uint64_t> bars, int i) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(tma_detail::saddr(bars + i)) : "memory");
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::mbarrier_arrive(bars.array(), bars.byte_offset() + std::int64_t(i) * 8);
#else
  (void)bars, (void)i;
#endif
}

__device__ __forceinline__ void mbarrier_wait(lds_ptr<std::uint64_t> bars, int i, int parity
#if defined(DSV4_BACKEND_SIM)
                                              ,
                                              const std::source_location& loc = std::source_location::current()
#endif
) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  const unsigned a = tma_detail::saddr(bars + i);
  for (unsigned polls = 0;; ++polls) {
    unsigned done;
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(a), "r"(parity)
        : "memory");
    if (done) break;
    if (polls == (1u << 28)) __trap();
  }
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::mbarrier_wait(bars.array(), bars.byte_offset() + std::int64_t(i) * 8, parity, loc);
#else
  (void)bars, (void)i, (void)parity;
#endif
}

__device__ __forceinline__ void mbarrier_inval(lds_ptr<std::uint64_t> bars, int i) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(tma_detail::saddr(bars + i)) : "memory");
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::mbarrier_inval(bars.array(), bars.byte_offset() + std::int64_t(i) * 8);
#else
  (void)bars, (void)i;
#endif
}

__device__ __forceinline__ void tma_prefetch_descriptor(const TensorMap2d& map) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(&map)) : "memory");
#else
  (void)map;  // sim: copies read the map directly; hip: no TMA
#endif
}

#if defined(DSV4_BACKEND_SIM)
namespace tma_detail {
// The copy emulation of one box_rows x 64 box of `f` at (row, col), written swizzled at byte offset `own` of dst's
// LDS array (bounds- and race-checked as the issuing thread's accesses); elements outside the tensor are zeros.
inline void sim_copy_box(lds_ptr<std::uint16_t> dst, std::int64_t own, const detail::TensorMapFields& f,
                         std::int64_t col, std::int64_t row) {
  const std::int64_t window = sim::detail::lds_arena_offset(dst.array(), own);
  for (int r = 0; r < f.box_rows; ++r)
    for (int c = 0; c < kTensorMapBoxCols / 8; ++c) {
      const std::int64_t gr = row + r, gc = col + 8 * c;
      std::uint16_t v[8] = {};
      if (gr >= 0 && gr < f.rows && gc >= 0 && gc < f.cols) {  // cols is a multiple of 8: whole chunks
        sim::detail::preempt_global_access();
        std::memcpy(v, static_cast<const unsigned char*>(f.base) + gr * f.row_stride_bytes + gc * 2, 16);
      }
      const std::int64_t addr = window + r * 128 + c * 16;
      const std::int64_t phys = swizzle128_address(addr);
      sim::detail::lds_access(dst.array(), own + (phys - window), v, 16, sim::detail::LdsMode::write);
    }
}
inline detail::TensorMapFields sim_fields(const TensorMap2d& map, bool panels, const char* op) {
  detail::TensorMapFields f;
  std::memcpy(&f, map.opaque, sizeof f);
  if ((f.panels != 0) != panels)
    throw std::runtime_error(std::string(op) + ": the map was made by " +
                             (panels ? "make_tensor_map_2d (copy it with tma_load_2d)"
                                     : "make_tensor_map_panels (copy it with tma_load_panels)"));
  return f;
}
}  // namespace tma_detail
#endif

__device__ __forceinline__ void tma_load_2d(lds_ptr<std::uint16_t> dst, std::ptrdiff_t elem, const TensorMap2d& map,
                                            int col, int row, lds_ptr<std::uint64_t> bars, int i) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
          "r"(tma_detail::saddr(dst + elem)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(col), "r"(row), "r"(tma_detail::saddr(bars + i))
      : "memory");
#elif defined(DSV4_BACKEND_SIM)
  const detail::TensorMapFields f = tma_detail::sim_fields(map, false, "tma_load_2d");
  tma_detail::sim_copy_box(dst, dst.byte_offset() + std::int64_t(elem) * 2, f, col, row);
  sim::detail::mbarrier_complete_tx(bars.array(), bars.byte_offset() + std::int64_t(i) * 8,
                                    static_cast<unsigned>(f.box_rows) * kTensorMapBoxCols * 2);
#else
  (void)dst, (void)elem, (void)map, (void)col, (void)row, (void)bars, (void)i;
#endif
}

__device__ __forceinline__ void tma_load_panels(lds_ptr<std::uint16_t> dst, std::ptrdiff_t elem, const TensorMap2d& map,
                                                int row, int panel0, lds_ptr<std::uint64_t> bars, int i) {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::
          "r"(tma_detail::saddr(dst + elem)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(0), "r"(row), "r"(panel0), "r"(tma_detail::saddr(bars + i))
      : "memory");
#elif defined(DSV4_BACKEND_SIM)
  const detail::TensorMapFields f = tma_detail::sim_fields(map, true, "tma_load_panels");
  const std::int64_t own = dst.byte_offset() + std::int64_t(elem) * 2;
  for (int q = 0; q < f.panels; ++q)
    tma_detail::sim_copy_box(dst, own + std::int64_t(q) * f.box_rows * 128, f,
                             (std::int64_t(panel0) + q) * kTensorMapBoxCols, row);
  sim::detail::mbarrier_complete_tx(bars.array(), bars.byte_offset() + std::int64_t(i) * 8,
                                    static_cast<unsigned>(f.panels * f.box_rows) * kTensorMapBoxCols * 2);
#else
  (void)dst, (void)elem, (void)map, (void)row, (void)panel0, (void)bars, (void)i;
#endif
}

}  // namespace dsv4::port
