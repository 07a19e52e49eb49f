// The calls between hipsim/amdgcn_mem.h (global_load_lds, s_waitcnt, buffer resources) and their emulation in
// hipsim/runtime (lds_dma.cpp, buffer_ops.cpp). Plain C types only, as in hipsim/abi.h.
#pragma once
#include <cstdint>
#include <source_location>

// A buffer resource (V#) as the sim keeps it: the fields __builtin_amdgcn_make_buffer_rsrc sets.
struct __hipsim_buffer_rsrc {
  void* base;
  int stride;
  std::uint32_t num_records;  // bytes, for a raw buffer (stride 0)
  int flags;                  // descriptor dword 3; the sim does not interpret it
};

extern "C" {
// One lane's part of a global_load_lds: `size` bytes from src + offset, written at M0 + offset + lane * stride.
void __hipsim_global_load_lds(const void* src, void* lds, unsigned size, int offset, unsigned aux,
                              const std::source_location* loc);
void __hipsim_vmcnt_wait(int vmcnt);  // s_waitcnt vmcnt(vmcnt) for the current lane's wave
// A raw buffer load (write = 0: into data) or store (write = 1: from data) of `bytes` (1, 2, 4, 8, 12 or 16).
void __hipsim_raw_buffer(const __hipsim_buffer_rsrc* r, int voffset, int soffset, void* data, unsigned bytes,
                         int write, const std::source_location* loc);
}

// Sizes global_load_lds takes (clang-22 Sema: 1, 2, 4; 12 and 16 with gfx950's instructions).
constexpr bool __hipsim_lds_dma_size_ok(unsigned size) {
#if defined(__gfx950__)
  if (size == 12 || size == 16) return true;
#endif
  return size == 1 || size == 2 || size == 4;
}
