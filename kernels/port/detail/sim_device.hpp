// sim backend, kernel side: what the HIP names mean when a kernel file is compiled by g++ as C++ and run by the
// fiber executor (kernels/backend/sim). Included only through kernels/port/hip_port.hpp.
// Invariant: one OS thread runs all fibers, and g_current points at the running fiber's coordinates.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <source_location>
#include <type_traits>

#include "kernels/port/runtime.hpp"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)

namespace dsv4::port::sim::detail {

struct BlockExec;

struct ThreadCtx {
  Dim3 thread_idx, block_idx, block_dim, grid_dim;
  int wave_size = 64;
  int linear = 0;  // linear thread index in the block
  int lane = 0, wave = 0;
  BlockExec* block = nullptr;
  bool awaiting_previous_grid = false;  // launched with overlap_previous and wait_for_previous_grid() not yet called
};
extern thread_local ThreadCtx* g_current;

// ---- LDS ----
struct LdsSite {
  const char* name;
  std::size_t bytes;
  std::size_t align;
};
enum class LdsMode { read, write, atomic_read, atomic_write };
int lds_static(const LdsSite* site);     // array id in the current block (allocated at first declaration)
int lds_dynamic(const char* name);       // array id of the dynamic region
int lds_carve(int parent, std::int64_t byte_offset, std::size_t bytes, const char* name);
std::int64_t lds_arena_offset(int array, std::int64_t byte_offset);  // byte offset in the block's LDS window
// `remote`: the block of the cluster whose LDS the access goes to (a port::cluster_lds pointer); nullptr: the
// current block's own LDS.
void lds_access(int array, std::int64_t byte_offset, void* buf, std::size_t n, LdsMode mode,
                BlockExec* remote = nullptr);
[[noreturn]] void lds_remote_misuse();  // a cluster-mapped pointer reached an operation on the block's own LDS

// Array `local_array` of the current block seen in the LDS of the cluster's block `remote` (the sm_90 module's
// port::cluster_lds): its array id there (lds.cpp).
int cluster_array(BlockExec* remote, int local_array);

// ---- sync points ----
void syncthreads(const std::source_location& loc);
void preempt_point();            // random schedule may switch to another thread here
void preempt_global_access();    // only when Options::preempt_global; first checks the grid dependency wait
void check_previous_grid_waited(const char* what);  // throws when a global access precedes wait_for_previous_grid
void wait_previous_grid();       // kernels/port/grid_dependency.hpp
enum class WaveOp : int { shfl, shfl_xor, shfl_up, shfl_down, ballot, any, all, collective };
// Every lane of the wave deposits `bytes` of value and the lane it reads; returns when the exchange is complete.
void wave_exchange(WaveOp op, const void* value, std::size_t bytes, int src_lane, void* out,
                   const std::source_location& loc);
std::uint64_t wave_vote(WaveOp op, bool pred, const std::source_location& loc);  // ballot mask of the wave
// A whole-wave instruction (MFMA, DPP, ds_bpermute, readlane, ...): every lane of the wave meets here with a pointer
// to its operands and to where its results go; the last lane to arrive calls fn once with all of them (index =
// lane), then the wave goes on. Lanes that meet at different sites or with different fn are a wave_divergence.
// fn runs on the executor between fibers: it must not yield or access memory through the checks.
using WaveCollectiveFn = void (*)(const void* user, int lanes, const void* const* in, void* const* out);
void wave_collective(WaveCollectiveFn fn, const void* user, const void* in, void* out, const std::source_location& loc);

void enqueue_launch(const LaunchConfig& cfg, std::function<void()> body);

// ---- checked LDS handles ----
template <class T>
class LdsRef {
  static_assert(std::is_trivially_copyable_v<T>, "LDS element types must be trivially copyable");

 public:
  LdsRef(int array, std::int64_t byte_offset, BlockExec* remote = nullptr)
      : array_(array), off_(byte_offset), remote_(remote) {}
  operator T() const {
    T v;
    lds_access(array_, off_, &v, sizeof(T), LdsMode::read, remote_);
    return v;
  }
  const LdsRef& operator=(const T& v) const {
    T tmp = v;
    lds_access(array_, off_, &tmp, sizeof(T), LdsMode::write, remote_);
    return *this;
  }
  const LdsRef& operator=(const LdsRef& o) const { return *this = static_cast<T>(o); }
  template <class U> const LdsRef& operator+=(const U& v) const { return *this = static_cast<T>(T(*this) + v); }
  template <class U> const LdsRef& operator-=(const U& v) const { return *this = static_cast<T>(T(*this) - v); }
  template <class U> const LdsRef& operator*=(const U& v) const { return *this = static_cast<T>(T(*this) * v); }
  template <class U> const LdsRef& operator/=(const U& v) const { return *this = static_cast<T>(T(*this) / v); }
  template <class U> const LdsRef& operator|=(const U& v) const { return *this = static_cast<T>(T(*this) | v); }
  template <class U> const LdsRef& operator&=(const U& v) const { return *this = static_cast<T>(T(*this) & v); }
  const LdsRef& operator++() const { return *this = static_cast<T>(T(*this) + 1); }
  const LdsRef& operator--() const { return *this = static_cast<T>(T(*this) - 1); }
  T operator++(int) const { T old = *this; *this = static_cast<T>(old + 1); return old; }
  T operator--(int) const { T old = *this; *this = static_cast<T>(old - 1); return old; }

 private:
  int array_;
  std::int64_t off_;
  BlockExec* remote_;
};

// A checked LDS pointer: an array of the current block's LDS, or (remote != nullptr, from port::cluster_lds) of
// another block of its cluster. Element access and lds_load_as / lds_store_as reach either; every other layer
// operation (carving, copies into LDS, MMAs, barriers) takes the block's own LDS only: array() refuses a remote one.
template <class T>
class LdsPtr {
 public:
  LdsPtr() = default;
  LdsPtr(int array, std::int64_t byte_offset, BlockExec* remote = nullptr)
      : array_(array), off_(byte_offset), remote_(remote) {}
  LdsRef<T> operator[](std::ptrdiff_t i) const {
    return LdsRef<T>(array_, off_ + std::int64_t(i) * std::int64_t(sizeof(T)), remote_);
  }
  LdsRef<T> operator*() const { return (*this)[0]; }
  LdsPtr operator+(std::ptrdiff_t i) const {
    return LdsPtr(array_, off_ + std::int64_t(i) * std::int64_t(sizeof(T)), remote_);
  }
  LdsPtr operator-(std::ptrdiff_t i) const { return *this + (-i); }
  LdsPtr& operator+=(std::ptrdiff_t i) { return *this = *this + i; }
  LdsPtr& operator-=(std::ptrdiff_t i) { return *this = *this + (-i); }
  int array() const {
    if (remote_) lds_remote_misuse();
    return array_;
  }
  int any_array() const { return array_; }  // the array id in the LDS of remote() (or the own block's)
  BlockExec* remote() const { return remote_; }
  std::int64_t byte_offset() const { return off_; }

 private:
  int array_ = -1;
  std::int64_t off_ = 0;
  BlockExec* remote_ = nullptr;
};

}  // namespace dsv4::port::sim::detail

namespace dsv4::port {
template <class T>
using lds_ptr = sim::detail::LdsPtr<T>;
}

#define DSV4_LDS(T, name, N)                                                                             \
  static constexpr ::dsv4::port::sim::detail::LdsSite dsv4_lds_site_##name{#name, sizeof(T) * (N),       \
                                                                            alignof(T) < 16 ? 16 : alignof(T)}; \
  const ::dsv4::port::lds_ptr<T> name(::dsv4::port::sim::detail::lds_static(&dsv4_lds_site_##name), 0)
#define DSV4_LDS_DYNAMIC(T, name) \
  const ::dsv4::port::lds_ptr<T> name(::dsv4::port::sim::detail::lds_dynamic(#name), 0)

// ---- HIP names ----
#define threadIdx (::dsv4::port::sim::detail::g_current->thread_idx)
#define blockIdx (::dsv4::port::sim::detail::g_current->block_idx)
#define blockDim (::dsv4::port::sim::detail::g_current->block_dim)
#define gridDim (::dsv4::port::sim::detail::g_current->grid_dim)
#define warpSize (::dsv4::port::sim::detail::g_current->wave_size)

using dim3 = ::dsv4::port::Dim3;

struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

inline void __syncthreads(const std::source_location& loc = std::source_location::current()) {
  ::dsv4::port::sim::detail::syncthreads(loc);
}
inline void __threadfence() { ::dsv4::port::sim::detail::preempt_point(); }
inline void __threadfence_block() { ::dsv4::port::sim::detail::preempt_point(); }

namespace dsv4::port::sim::detail {
template <class T>
T shuffle(WaveOp op, T v, int src, const std::source_location& loc) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16, "shuffle of a type over 16 bytes");
  T out;
  wave_exchange(op, &v, sizeof(T), src, &out, loc);
  return out;
}
inline int lane_base(int width) { return g_current->lane & ~(width - 1); }
}  // namespace dsv4::port::sim::detail

// Source lanes follow HIP: a source outside the caller's width-segment reads the caller's own value.
template <class T>
T __shfl(T v, int src_lane, int width = warpSize, const std::source_location& loc = std::source_location::current()) {
  using namespace ::dsv4::port::sim::detail;
  const int src = lane_base(width) + (src_lane & (width - 1));
  return shuffle(WaveOp::shfl, v, src, loc);
}
template <class T>
T __shfl_xor(T v, int lane_mask, int width = warpSize,
             const std::source_location& loc = std::source_location::current()) {
  using namespace ::dsv4::port::sim::detail;
  const int self = g_current->lane;
  int src = self ^ lane_mask;
  if (src >= lane_base(width) + width || src < lane_base(width)) src = self;
  return shuffle(WaveOp::shfl_xor, v, src, loc);
}
template <class T>
T __shfl_down(T v, unsigned delta, int width = warpSize,
              const std::source_location& loc = std::source_location::current()) {
  using namespace ::dsv4::port::sim::detail;
  const int self = g_current->lane;
  const int src = (self & (width - 1)) + int(delta) >= width ? self : self + int(delta);
  return shuffle(WaveOp::shfl_down, v, src, loc);
}
template <class T>
T __shfl_up(T v, unsigned delta, int width = warpSize,
            const std::source_location& loc = std::source_location::current()) {
  using namespace ::dsv4::port::sim::detail;
  const int self = g_current->lane;
  const int src = self - int(delta) < lane_base(width) ? self : self - int(delta);
  return shuffle(WaveOp::shfl_up, v, src, loc);
}
inline unsigned long long __ballot(int pred, const std::source_location& loc = std::source_location::current()) {
  return ::dsv4::port::sim::detail::wave_vote(::dsv4::port::sim::detail::WaveOp::ballot, pred != 0, loc);
}
inline int __any(int pred, const std::source_location& loc = std::source_location::current()) {
  return ::dsv4::port::sim::detail::wave_vote(::dsv4::port::sim::detail::WaveOp::any, pred != 0, loc) != 0;
}
inline int __all(int pred, const std::source_location& loc = std::source_location::current()) {
  return ::dsv4::port::sim::detail::wave_vote(::dsv4::port::sim::detail::WaveOp::all, pred != 0, loc) != 0;
}
inline int __lane_id() { return ::dsv4::port::sim::detail::g_current->lane; }

// Device-scope atomics on global memory (preemption point first under the random schedule).
#define DSV4_SIM_ATOMIC(name, expr)                                   \
  template <class T>                                                  \
  T name(T* addr, T v) {                                              \
    ::dsv4::port::sim::detail::check_previous_grid_waited("atomic");  \
    ::dsv4::port::sim::detail::preempt_point();                       \
    std::atomic_ref<T> a(*addr);                                      \
    return expr;                                                      \
  }
DSV4_SIM_ATOMIC(atomicAdd, a.fetch_add(v))
DSV4_SIM_ATOMIC(atomicSub, a.fetch_sub(v))
DSV4_SIM_ATOMIC(atomicExch, a.exchange(v))
DSV4_SIM_ATOMIC(atomicOr, a.fetch_or(v))
DSV4_SIM_ATOMIC(atomicAnd, a.fetch_and(v))
DSV4_SIM_ATOMIC(atomicXor, a.fetch_xor(v))
#undef DSV4_SIM_ATOMIC
template <class T>
T atomicMax(T* addr, T v) {
  ::dsv4::port::sim::detail::check_previous_grid_waited("atomic");
  ::dsv4::port::sim::detail::preempt_point();
  std::atomic_ref<T> a(*addr);
  T old = a.load();
  while (old < v && !a.compare_exchange_weak(old, v)) {}
  return old;
}
template <class T>
T atomicMin(T* addr, T v) {
  ::dsv4::port::sim::detail::check_previous_grid_waited("atomic");
  ::dsv4::port::sim::detail::preempt_point();
  std::atomic_ref<T> a(*addr);
  T old = a.load();
  while (v < old && !a.compare_exchange_weak(old, v)) {}
  return old;
}
template <class T>
T atomicCAS(T* addr, T compare, T v) {
  ::dsv4::port::sim::detail::check_previous_grid_waited("atomic");
  ::dsv4::port::sim::detail::preempt_point();
  std::atomic_ref<T> a(*addr);
  a.compare_exchange_strong(compare, v);
  return compare;
}
