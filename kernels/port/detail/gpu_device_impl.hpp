// cuda and hip backends: definitions of the kernel-side layer templates declared in kernels/port/hip_port.hpp.
// LDS handles are plain pointers; the launch goes through a checked, non-template runtime call.
#pragma once

#include <tuple>
#include <utility>

namespace dsv4::port {

namespace detail {
// Implemented in kernels/backend/<cuda|hip>/: capacity check, launch, error check, launch log.
void gpu_launch(const void* kernel, const LaunchConfig& cfg, void** args);
}  // namespace detail

template <class V, class T>
__device__ __forceinline__ V lds_load_as(lds_ptr<T> base, std::ptrdiff_t elem) {
  return *reinterpret_cast<const V*>(base + elem);
}
template <class V, class T>
__device__ __forceinline__ void lds_store_as(lds_ptr<T> base, std::ptrdiff_t elem, const V& v) {
  *reinterpret_cast<V*>(base + elem) = v;
}
template <class V, class T>
__device__ __forceinline__ void global_to_lds(lds_ptr<T> dst, std::ptrdiff_t elem, const V* src) {
  *reinterpret_cast<V*>(dst + elem) = *src;
}
template <class U, class T>
__device__ __forceinline__ lds_ptr<U> lds_carve(lds_ptr<T> base, std::size_t byte_offset, std::size_t,
                                                const char*) {
  return reinterpret_cast<U*>(reinterpret_cast<unsigned char*>(base) + byte_offset);
}
template <class T>
__device__ __forceinline__ T lds_atomic_add(lds_ptr<T> base, std::ptrdiff_t elem, T v) {
  return atomicAdd(base + elem, v);
}
template <class T>
__device__ __forceinline__ T global_load(const T* p) {
  return *p;
}
template <class T>
__device__ __forceinline__ void global_store(T* p, const T& v) {
  *p = v;
}

template <class... P, class... A>
void launch(void (*kernel)(P...), const LaunchConfig& cfg, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "launch: argument count differs from the kernel's parameters");
  std::tuple<std::decay_t<P>...> bound(static_cast<std::decay_t<P>>(std::forward<A>(args))...);
  std::apply(
      [&](auto&... e) {
        void* argv[] = {static_cast<void*>(&e)..., nullptr};
        detail::gpu_launch(reinterpret_cast<const void*>(kernel), cfg, argv);
      },
      bound);
}

}  // namespace dsv4::port
