// Small kernels for the simulator's own tests, written as ordinary HIP through kernels/port/hip_port.hpp.
// Several carry deliberately planted defects (named in sim_test_kernels.hpp) that the tests expect to be reported.
#include "tests/kernels/sim/sim_test_kernels.hpp"

#include <stdexcept>

#include "kernels/port/hip_port.hpp"
#include "kernels/port/grid_dependency.hpp"

namespace dsv4::test::simk {
using namespace dsv4::port;

namespace {
LaunchConfig cfg(const char* name, Dim3 grid, Dim3 block, Stream* s = nullptr, std::size_t dyn = 0) {
  return LaunchConfig{grid, block, dyn, s, name, {}};
}
}  // namespace

__global__ void rotate_kernel(int* out, int n, int with_barrier) {
  DSV4_LDS(int, tile, 1024);
  const int t = static_cast<int>(threadIdx.x);
  tile[t] = t + 1000 * static_cast<int>(blockIdx.x);
  if (with_barrier) __syncthreads();
  out[blockIdx.x * n + t] = tile[(t + 1) % n];
}
void rotate_through_lds(int* out, int blocks, int n, Stream* s) {
  launch(rotate_kernel, cfg("rotate", Dim3(blocks), Dim3(n), s), out, n, 1);
}
void rotate_without_barrier(int* out, int n, Stream* s) {
  launch(rotate_kernel, cfg("rotate_no_barrier", Dim3(1), Dim3(n), s), out, n, 0);
}

__global__ void wave_ops_kernel(int* out, int* wave_size) {
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % warpSize;
  const int v = 3 * lane + 1;
  int sum = v;
  for (int m = warpSize / 2; m >= 1; m /= 2) sum += __shfl_xor(sum, m);
  out[6 * t + 0] = sum;
  out[6 * t + 1] = __shfl_down(v, 1u);
  out[6 * t + 2] = __shfl_up(v, 2u);
  out[6 * t + 3] = __shfl(v, 5);
  const unsigned long long b = __ballot(lane % 3 == 0);
  out[6 * t + 4] = static_cast<int>(b & 0xffffffffu);
  out[6 * t + 5] = static_cast<int>(b >> 32);
  if (t == 0) *wave_size = warpSize;
}
void wave_ops(int* out, int* wave_size, int threads, Stream* s) {
  launch(wave_ops_kernel, cfg("wave_ops", Dim3(1), Dim3(threads), s), out, wave_size);
}

namespace {
// The collective under test: out[l] = in[lanes - 1 - l] + 1000 * lanes (each lane reads another lane's operand).
void reverse_plus_count(const void* user, int lanes, const void* const* in, void* const* out) {
  const int bias = *static_cast<const int*>(user);
  for (int l = 0; l < lanes; ++l)
    *static_cast<int*>(out[l]) = *static_cast<const int*>(in[lanes - 1 - l]) + bias * lanes;
}
const int kThousand = 1000;
}  // namespace

__global__ void wave_collective_kernel(int* out, int diverge_lane) {
  const int t = static_cast<int>(threadIdx.x);
  const int v = 5 * t + 2;
  int r = -1;
  if (t % warpSize != diverge_lane)  // planted when diverge_lane >= 0: that lane meets at another site
    sim::detail::wave_collective(reverse_plus_count, &kThousand, &v, &r, std::source_location::current());
  else
    sim::detail::wave_collective(reverse_plus_count, &kThousand, &v, &r, std::source_location::current());
  out[t] = r;
}
void wave_collective(int* out, int threads, int diverge_lane) {
  launch(wave_collective_kernel, cfg("wave_collective", Dim3(1), Dim3(threads)), out, diverge_lane);
}

__global__ void planted_overflow_kernel(float* read_value, int bad_thread, int write_index, int read_index) {
  DSV4_LDS(float, tile, 64);
  const int t = static_cast<int>(threadIdx.x);
  tile[t] = static_cast<float>(t);
  __syncthreads();
  if (t == bad_thread) {
    tile[write_index] = 123.0f;  // planted: out of range when write_index >= 64
    *read_value = tile[read_index];
  }
}
void planted_lds_overflow(float* read_value, int threads, int bad_thread, int write_index, int read_index) {
  launch(planted_overflow_kernel, cfg("planted_overflow", Dim3(1), Dim3(threads)), read_value, bad_thread,
         write_index, read_index);
}

__global__ void neighbour_kernel(int* out) {
  DSV4_LDS(int, first, 16);
  DSV4_LDS(int, second, 16);
  const int t = static_cast<int>(threadIdx.x);
  first[t] = t;
  second[t] = 100 + t;
  __syncthreads();
  if (t == 0) first[16 + 2] = 77;  // planted: lands in second[2] (same arena)
  __syncthreads();
  if (t == 1) *out = second[2];
}
void overflow_into_neighbour(int* out) { launch(neighbour_kernel, cfg("neighbour", Dim3(1), Dim3(16)), out); }

__global__ void uninit_kernel(float* out) {
  DSV4_LDS(float, tile, 512);
  const int t = static_cast<int>(threadIdx.x);
  tile[2 * t] = 1.0f + static_cast<float>(t);
  __syncthreads();
  out[t] = tile[2 * t + 1];  // planted: odd slots never written
}
void uninitialized_read(float* out, int threads) {
  launch(uninit_kernel, cfg("uninit", Dim3(1), Dim3(threads)), out);
}

__global__ void early_exit_kernel(int* out, int live_threads) {
  const int t = static_cast<int>(threadIdx.x);
  if (t >= live_threads) return;  // planted: these threads never reach the barrier
  __syncthreads();
  out[t] = 1;
}
void barrier_after_early_exit(int* out, int threads, int live_threads) {
  launch(early_exit_kernel, cfg("early_exit", Dim3(1), Dim3(threads)), out, live_threads);
}

__global__ void partial_wave_kernel(int* out) {
  const int t = static_cast<int>(threadIdx.x);
  int v = t;
  if (t % warpSize < 16) v = __shfl_xor(v, 1);  // planted: only part of the wave
  __syncthreads();
  out[t] = v;
}
void partial_wave_shuffle(int* out, int threads) {
  launch(partial_wave_kernel, cfg("partial_wave", Dim3(1), Dim3(threads)), out);
}

__global__ void two_sites_kernel(int* out) {
  const int t = static_cast<int>(threadIdx.x);
  if (t % 2) {
    __syncthreads();  // planted: odd threads here
  } else {
    __syncthreads();  // ... even threads here
  }
  out[t] = t;
}
void barrier_two_sites(int* out, int threads) {
  launch(two_sites_kernel, cfg("two_sites", Dim3(1), Dim3(threads)), out);
}

__global__ void ticket_kernel(int* counter, int* order, int tag) {
  const int gid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int ticket = atomicAdd(counter, 1);
  order[ticket] = tag * 100000 + gid;
}
void ticket_order(int* counter, int* order, int tag, int blocks, int threads, Stream* s) {
  launch(ticket_kernel, cfg("ticket", Dim3(blocks), Dim3(threads), s), counter, order, tag);
}

__global__ void throwing_kernel_k(int* out, int throw_block, int throw_thread) {
  if (static_cast<int>(blockIdx.x) == throw_block && static_cast<int>(threadIdx.x) == throw_thread)
    throw std::runtime_error("planted kernel fault");
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
void throwing_kernel(int* out, int blocks, int threads, int throw_block, int throw_thread) {
  launch(throwing_kernel_k, cfg("throwing", Dim3(blocks), Dim3(threads)), out, throw_block, throw_thread);
}

// One 16-byte store per thread at byte offset `byte_offset` + 16 * thread of `out`.
__global__ void vector_store_k(unsigned char* out, int byte_offset) {
  auto* dst = reinterpret_cast<uint4*>(out + byte_offset + 16 * static_cast<int>(threadIdx.x));
  dsv4::port::global_store(dst, make_uint4(1, 2, 3, threadIdx.x));
}
void vector_store(void* out, int threads, int byte_offset) {
  launch(vector_store_k, cfg("vector_store", Dim3(1), Dim3(threads)), static_cast<unsigned char*>(out), byte_offset);
}

__global__ void store_after_grid_wait_k(int* out, int store_first) {
  const int t = static_cast<int>(threadIdx.x);
  if (store_first) dsv4::port::global_store(out + t, -1);
  dsv4::port::wait_for_previous_grid();
  dsv4::port::global_store(out + t, t + 1);
}
void store_after_grid_wait(int* out, int threads, bool store_first) {
  LaunchConfig c = cfg("store_after_grid_wait", Dim3(1), Dim3(threads));
  c.overlap_previous = true;
  launch(store_after_grid_wait_k, c, out, store_first ? 1 : 0);
}

template <int KiB>
__global__ void big_lds_kernel(int* out) {
  DSV4_LDS(unsigned char, big, KiB * 1024);
  if (threadIdx.x == 0) {
    big[KiB * 1024 - 1] = 5;
    *out = big[KiB * 1024 - 1];
  }
}
void big_static_lds(int* out, int kilobytes) {
  if (kilobytes == 48) launch(big_lds_kernel<48>, cfg("big_lds_48", Dim3(1), Dim3(64)), out);
  else if (kilobytes == 100) launch(big_lds_kernel<100>, cfg("big_lds_100", Dim3(1), Dim3(64)), out);
  else launch(big_lds_kernel<200>, cfg("big_lds_200", Dim3(1), Dim3(64)), out);
}

__global__ void dyn_vec_kernel(float* out) {
  DSV4_LDS_DYNAMIC(float, dyn);
  const int t = static_cast<int>(threadIdx.x);
  const int n = static_cast<int>(blockDim.x);
  const float f = static_cast<float>(t);
  lds_store_vec(dyn, 4 * t, make_float4(f, f + 0.25f, f + 0.5f, f + 0.75f));
  auto view = lds_carve<float4>(dyn, 0, static_cast<std::size_t>(n), "view");
  __syncthreads();
  const float4 v = lds_load_as<float4>(view, (t + 1) % n);
  out[t] = v.y;
}
void dynamic_lds_vectors(float* out, int threads, std::size_t bytes) {
  launch(dyn_vec_kernel, cfg("dyn_vec", Dim3(1), Dim3(threads), nullptr, bytes), out);
}

__global__ void straddling_kernel(float* out) {
  DSV4_LDS_DYNAMIC(float, dyn);
  if (threadIdx.x == 0) lds_store_vec(dyn, 4, make_float4(1.5f, 2.5f, 3.5f, 4.5f));
  __syncthreads();
  if (threadIdx.x == 1) {
    out[0] = dyn[4];
    out[1] = dyn[5];
    const float4 v = lds_load_as<float4>(dyn, 4);
    out[2] = v.x;
    out[3] = v.z;
  }
}
void straddling_lds_store(float* out) {
  launch(straddling_kernel, cfg("straddling", Dim3(1), Dim3(64), nullptr, 24), out);
}

__global__ void add_scalar_kernel(float* y, int n, float a) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] += a;
}
void add_scalar(float* y, int n, float a, Stream* s) {
  LaunchConfig c = cfg("add_scalar", Dim3((n + 127) / 128), Dim3(128), s);
  c.ranges = {reads_writes(y, sizeof(float) * static_cast<std::size_t>(n), "y")};
  launch(add_scalar_kernel, c, y, n, a);
}

__global__ void tiled_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  DSV4_LDS(float, As, 16 * 16);
  DSV4_LDS(float, Bs, 16 * 16);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row = static_cast<int>(blockIdx.y) * 16 + ty, col = static_cast<int>(blockIdx.x) * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty * 16 + tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty * 16 + tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[ty * 16 + k] * Bs[k * 16 + tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K, Stream* s) {
  LaunchConfig c = cfg("tiled_gemm", Dim3((N + 15) / 16, (M + 15) / 16), Dim3(16, 16), s);
  c.ranges = {reads(A, sizeof(float) * std::size_t(M) * K, "A"), reads(B, sizeof(float) * std::size_t(K) * N, "B"),
              writes(C, sizeof(float) * std::size_t(M) * N, "C")};
  launch(tiled_gemm_kernel, c, A, B, C, M, N, K);
}

__global__ void barrier_loop_kernel(int* out, int iters) {
  int n = 0;
  for (int i = 0; i < iters; ++i) {
    ++n;
    __syncthreads();
  }
  out[threadIdx.x] = n;
}
void barrier_loop(int* out, int iters) {
  launch(barrier_loop_kernel, cfg("barrier_loop", Dim3(1), Dim3(256)), out, iters);
}

}  // namespace dsv4::test::simk
