// The 128-byte swizzle of sm_90 shared-memory tiles, shared by the warpgroup MMA (kernels/nvidia/port/wgmma.hpp) and the
// bulk tensor copies (kernels/nvidia/port/tma.hpp): a tile of R rows (R a multiple of 8) by 64 2-byte elements is R rows
// of 128 bytes, and 16-byte chunk c of row r lives at swizzle128_byte(r, c) = r * 128 + ((c ^ (r % 8)) * 16) from
// the tile's start. The hardware applies the rule to LDS-window address bits (bits 4-6 XOR bits 7-9,
// swizzle128_address), so the relative form holds only for tiles starting on a kSwizzle128Align boundary;
// lds_align_skip gives the elements to skip at the start of an allocation. Include after kernels/port/hip_port.hpp,
// from kernel TUs only.
#pragma once

#include <cstdint>

namespace dsv4::port {

inline constexpr int kSwizzle128Align = 1024;  // bytes: one 8-row swizzle atom of 128-byte rows

__device__ __forceinline__ int swizzle128_byte(int row, int chunk) { return row * 128 + ((chunk ^ (row & 7)) << 4); }

// Where the hardware puts the byte that unswizzled arithmetic places at LDS-window address `addr`.
__device__ __forceinline__ std::int64_t swizzle128_address(std::int64_t addr) {
  return addr ^ (((addr >> 7) & 7) << 4);
}

// Elements of T from `base` to the next kSwizzle128Align boundary of the LDS window.
template <class T>
__device__ __forceinline__ int lds_align_skip(lds_ptr<T> base) {
#if defined(DSV4_BACKEND_SIM)
  const std::int64_t at = sim::detail::lds_arena_offset(base.array(), base.byte_offset());
#elif defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  const std::int64_t at = static_cast<std::int64_t>(__cvta_generic_to_shared(base));
#else
  const std::int64_t at = 0;
  (void)base;
#endif
  return static_cast<int>(((kSwizzle128Align - (at & (kSwizzle128Align - 1))) & (kSwizzle128Align - 1)) /
                          static_cast<std::int64_t>(sizeof(T)));
}

}  // namespace dsv4::port
