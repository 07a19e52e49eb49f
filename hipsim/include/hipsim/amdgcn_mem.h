// CDNA memory and scheduling builtins for plain-HIP kernels on the sim: global_load_lds (asynchronous global -> LDS
// DMA), s_waitcnt, the scheduling hints, buffer resources with raw_buffer_load/store. The emulation and its ISA rules
// are in hipsim/runtime/lds_dma.cpp and buffer_ops.cpp; this header only marshals operands.
// Rules (clang-22's signatures, checked with clang++-22 --cuda-device-only for gfx90a, gfx942 and gfx950):
// - global_load_lds / load_to_lds(src, dst, size, offset, aux): any pointer types (HIP passes generic ones); size 1,
//   2, 4, and 12, 16 on gfx950 only; offset a 13-bit signed immediate. A constant size the target lacks is a compile
//   error, as in clang.
// - s_waitcnt(imm): the gfx9 encoding, vmcnt = imm[3:0] | imm[15:14] << 4, expcnt = imm[6:4], lgkmcnt = imm[11:8]
//   (CDNA3 ISA, "SOPP" S_WAITCNT). Only vmcnt waits for anything on the sim: LDS, scalar and export operations
//   complete when they run.
// - sched_barrier, sched_group_barrier, s_setprio, s_sleep, iglp_opt order or prioritise instructions for the
//   compiler or the hardware scheduler; they change no value, so on the sim they are no-ops (no wave meeting).
// - raw_buffer_load_b{8,16,32,64,96,128} / raw_buffer_store_b*: (rsrc, voffset, soffset, aux); b8 -> unsigned char,
//   b16 -> unsigned short, b32 -> unsigned, b64/b128 -> clang's unsigned vectors of 2 / 4; b96: clang's 3-element
//   vector is not spellable in source, the sim gives an ext_vector_type(3) of unsigned.
#pragma once
#include <cstdint>
#include <source_location>

#include "hipsim/abi_mem.h"

template <class G, class L>
inline void __builtin_amdgcn_global_load_lds(G* src, L* dst, unsigned size, int offset, unsigned aux,
                                             std::source_location loc = std::source_location::current())
    __attribute__((diagnose_if(!__hipsim_lds_dma_size_ok(size),
                               "hipsim: invalid size value for global_load_lds (1, 2 or 4; 12 or 16 on gfx950)",
                               "error")))
    __attribute__((diagnose_if(offset < -4096 || offset > 4095,
                               "hipsim: global_load_lds offset is a 13-bit signed immediate (-4096..4095)", "error"))) {
  __hipsim_global_load_lds((const void*)src, (void*)dst, size, offset, aux, &loc);
}

// clang-22 declares the source `void __global *`: a pointer to const does not convert (cast it, as on hardware).
template <class G, class L>
void __builtin_amdgcn_global_load_lds(const G* src, L* dst, unsigned size, int offset, unsigned aux,
                                      std::source_location loc = std::source_location::current()) =
    delete("hipsim: global_load_lds takes a non-const source pointer in clang-22 (cast away const)");

// load_to_lds: the generic-pointer form clang-22 also has; from global memory it is global_load_lds.
template <class G, class L>
inline void __builtin_amdgcn_load_to_lds(G* src, L* dst, unsigned size, int offset, unsigned aux,
                                         std::source_location loc = std::source_location::current())
    __attribute__((diagnose_if(!__hipsim_lds_dma_size_ok(size),
                               "hipsim: invalid size value for load_to_lds (1, 2 or 4; 12 or 16 on gfx950)",
                               "error"))) {
  __hipsim_global_load_lds((const void*)src, (void*)dst, size, offset, aux, &loc);
}

constexpr int __hipsim_waitcnt_vmcnt(int imm) { return (imm & 0xF) | ((imm >> 14) & 3) << 4; }
inline void __builtin_amdgcn_s_waitcnt(int imm) {
  const int vm = __hipsim_waitcnt_vmcnt(imm);
  if (vm < 63) __hipsim_vmcnt_wait(vm);
}
inline void __builtin_amdgcn_sched_barrier(int) {}
inline void __builtin_amdgcn_sched_group_barrier(int, int, int) {}
inline void __builtin_amdgcn_s_setprio(short) {}
inline void __builtin_amdgcn_s_sleep(int) {}
inline void __builtin_amdgcn_iglp_opt(int) {}

typedef __hipsim_buffer_rsrc __amdgpu_buffer_rsrc_t;
inline __amdgpu_buffer_rsrc_t __builtin_amdgcn_make_buffer_rsrc(void* base, short stride, int num_records, int flags) {
  return {base, stride, static_cast<std::uint32_t>(num_records), flags};
}

namespace hipsim_detail {
typedef unsigned buffer_v2u __attribute__((vector_size(8)));
typedef unsigned buffer_v3u __attribute__((ext_vector_type(3)));
typedef unsigned buffer_v4u __attribute__((vector_size(16)));
template <class T>
T buffer_load(__amdgpu_buffer_rsrc_t r, int voffset, int soffset, unsigned bytes, const std::source_location& loc) {
  T v;
  __hipsim_raw_buffer(&r, voffset, soffset, &v, bytes, 0, &loc);
  return v;
}
template <class T>
void buffer_store(T v, __amdgpu_buffer_rsrc_t r, int voffset, int soffset, unsigned bytes,
                  const std::source_location& loc) {
  __hipsim_raw_buffer(&r, voffset, soffset, &v, bytes, 1, &loc);
}
}  // namespace hipsim_detail

#define HIPSIM_RAW_BUFFER(bits, type)                                                                             \
  inline type __builtin_amdgcn_raw_buffer_load_b##bits(__amdgpu_buffer_rsrc_t r, int voffset, int soffset, int,  \
                                                       std::source_location loc = std::source_location::current()) { \
    return hipsim_detail::buffer_load<type>(r, voffset, soffset, bits / 8, loc);                                  \
  }                                                                                                              \
  inline void __builtin_amdgcn_raw_buffer_store_b##bits(type v, __amdgpu_buffer_rsrc_t r, int voffset, int soffset, \
                                                        int,                                                     \
                                                        std::source_location loc = std::source_location::current()) { \
    hipsim_detail::buffer_store<type>(v, r, voffset, soffset, bits / 8, loc);                                    \
  }
HIPSIM_RAW_BUFFER(8, unsigned char)
HIPSIM_RAW_BUFFER(16, unsigned short)
HIPSIM_RAW_BUFFER(32, unsigned)
HIPSIM_RAW_BUFFER(64, hipsim_detail::buffer_v2u)
HIPSIM_RAW_BUFFER(96, hipsim_detail::buffer_v3u)
HIPSIM_RAW_BUFFER(128, hipsim_detail::buffer_v4u)
#undef HIPSIM_RAW_BUFFER
