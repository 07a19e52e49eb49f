// Launchers of the small kernels the simulator's own tests run (defined in sim_test_kernels.kernel.cpp).
// Each kernel has a hand-derivable result or a deliberately planted defect named in its comment.
#pragma once

#include "kernels/port/runtime.hpp"

namespace dsv4::test::simk {
using dsv4::port::Stream;

// out[b*n + t] = (t+1)%n + 1000*b, read from LDS after a barrier (each thread writes tile[t] = t + 1000*b).
void rotate_through_lds(int* out, int blocks, int n, Stream* s = nullptr);
// The same without the barrier: a read-after-write hazard on every thread but the one reading its own slot.
void rotate_without_barrier(int* out, int n, Stream* s = nullptr);
// Wave ops on value v = 3*lane + 1 (lane within the wave), block of `threads`:
// out[6*t + 0] = xor-butterfly sum over the wave, [1] = __shfl_down(v,1), [2] = __shfl_up(v,2),
// [3] = __shfl(v, 5), [4,5] = low/high 32 bits of __ballot(lane % 3 == 0); warpSize into *wave_size.
void wave_ops(int* out, int* wave_size, int threads, Stream* s = nullptr);
// 64-float LDS array `tile`; every thread writes tile[t]; thread `bad_thread` also writes tile[write_index]
// (planted overflow when >= 64) and reads tile[read_index] into *read_value.
void planted_lds_overflow(float* read_value, int threads, int bad_thread, int write_index, int read_index);
// Two static arrays `first` (16 ints) then `second` (16 ints): thread 0 writes first[16 + 2] = 77 (inside the
// arena: lands in second[2]), barrier, thread 1 reads second[2] into *out.
void overflow_into_neighbour(int* out);
// Thread t writes tile[2t] only, barrier, reads tile[2t+1] (never written) into out[t].
void uninitialized_read(float* out, int threads);
// Threads of `threads` < block size return early when t >= live_threads, the rest wait at __syncthreads.
void barrier_after_early_exit(int* out, int threads, int live_threads);
// Lanes < 16 do a __shfl_xor; the others go on to a barrier.
void partial_wave_shuffle(int* out, int threads);
// The sim's whole-wave instruction hook: out[t] = v(wave lane w-1-l) + 1000 w with v(t) = 5t + 2 (t = thread).
// diverge_lane >= 0 plants one lane per wave meeting at another source line (a wave_divergence).
void wave_collective(int* out, int threads, int diverge_lane);
// Odd threads wait at one __syncthreads, even threads at another.
void barrier_two_sites(int* out, int threads);
// Each thread: ticket = atomicAdd(counter, 1); order[ticket] = tag * 100000 + global thread id.
void ticket_order(int* counter, int* order, int tag, int blocks, int threads, Stream* s = nullptr);
// Thread (throw_thread) of block (throw_block) throws std::runtime_error; others write 1 to out[global id].
void throwing_kernel(int* out, int blocks, int threads, int throw_block, int throw_thread);
// Every thread stores a 16-byte vector at out + byte_offset + 16 * thread (global_store).
void vector_store(void* out, int threads, int byte_offset);
// Launched with overlap_previous (programmatic dependent launch): every thread calls wait_for_previous_grid() and
// stores out[t] = t + 1 (global_store), or, with store_first, stores before waiting (the planted defect).
void store_after_grid_wait(int* out, int threads, bool store_first);
// A static LDS array of `kilobytes` KiB (templated sizes 48, 100, 200); thread 0 writes/reads it; *out = 5.
void big_static_lds(int* out, int kilobytes);
// Dynamic LDS of `bytes`: thread t stores float4(t, t+.25, t+.5, t+.75) via lds_store_vec at element 4t, carves a
// float4 view, barrier, reads back element (t+1)%threads via lds_load_as and writes its .y into out[t].
void dynamic_lds_vectors(float* out, int threads, std::size_t bytes);
// Dynamic LDS of 24 B: thread 0 stores float4(1.5, 2.5, 3.5, 4.5) at float element 4 (bytes 16-31: half of it past
// the arena), barrier; thread 1 writes dyn[4], dyn[5] (bytes the store performed) and the .x and .z of the float4 at
// bytes 16-31 (a straddling read) into out[0..3].
void straddling_lds_store(float* out);
// y[i] += a (one thread per element; grid of ceil(n/128) blocks of 128).
void add_scalar(float* y, int n, float a, Stream* s = nullptr);
// GEMM-like: C[M x N] = A[M x K] * B[K x N], 256 threads/block (16x16 tile), K staged through LDS 16 at a time
// with two barriers per step.
void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K, Stream* s = nullptr);
// `iters` barriers in a loop, 256 threads per block, one block: out[t] = iters (fiber-switch cost measurement).
void barrier_loop(int* out, int iters);
}  // namespace dsv4::test::simk
