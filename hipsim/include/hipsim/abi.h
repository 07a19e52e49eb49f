// The calls between code compiled from a user's HIP file (clang++-22 + the hipsim pass plugin, with the sim's HIP
// headers) and the hipsim runtime (hipsim/runtime, compiled with the project). Plain C types only, so both sides agree
// whatever compiler built them. Invariant: every function here is called only through the sim's HIP headers or the
// pass, never by user code directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <source_location>

struct __hipsim_uint3 { unsigned x, y, z; };
typedef struct __hipsim_stream* hipStream_t;
typedef struct __hipsim_event* hipEvent_t;

extern "C" {
// device side (running inside a sim thread)
__hipsim_uint3 __hipsim_coord(int which) __attribute__((const));  // 0 threadIdx 1 blockIdx 2 blockDim 3 gridDim
int __hipsim_lane() __attribute__((const));
void* __hipsim_lds(const void* site);   // pass: the block's copy of a __shared__ variable
void* __hipsim_lds_dynamic();           // pass: the block's extern __shared__ region
void __hipsim_access(const void* addr, std::uint64_t bytes, std::uint32_t flags, const void* lds_site, const char* loc);
std::uint64_t __hipsim_wave_vote(int op, int pred, const std::source_location* loc);
void __hipsim_wave_exchange(int op, const void* value, std::size_t bytes, int src_lane, void* out,
                            const std::source_location* loc);
// A whole-wave instruction: every lane meets with its operands `in` and result slot `out`; the last to arrive calls
// fn(user, lanes, in[], out[]) once (index = lane). fn must live in the runtime (uninstrumented code).
typedef void (*__hipsim_wave_fn)(const void* user, int lanes, const void* const* in, void* const* out);
void __hipsim_wave_collective(__hipsim_wave_fn fn, const void* user, const void* in, void* out,
                              const std::source_location* loc);
void __hipsim_syncthreads(const std::source_location* loc);
void __hipsim_fence();
// formats (bit-exact to reference/formats)
std::uint16_t __hipsim_f32_to_bf16_rn(float x);
std::uint16_t __hipsim_f32_to_f16_rn(float x);
float __hipsim_f16_to_f32(std::uint16_t h);
// host side
void* __hipsim_kernargs(std::size_t bytes);  // memory the kernel's arguments live in (a readable allocation)
// Bytes of host memory the runtime holds for device allocations (live and quarantined hipMalloc blocks and kernel
// arguments, redzones included); for tests of the runtime's own footprint, which RSS cannot show under ASan.
std::size_t __hipsim_held_bytes();
int __hipsim_enqueue(const char* name, void* kernel, __hipsim_uint3 grid, __hipsim_uint3 block, std::size_t lds,
                     hipStream_t stream, void (*invoke)(void* kernel, void* args), void* args,
                     void (*destroy)(void* args));
}
