// sim backend: definitions of the kernel-side layer templates declared in kernels/port/hip_port.hpp.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace dsv4::port {

template <class V, class T>
V lds_load_as(lds_ptr<T> base, std::ptrdiff_t elem) {
  static_assert(std::is_trivially_copyable_v<V>);
  V v;
  sim::detail::lds_access(base.any_array(), base.byte_offset() + std::int64_t(elem) * std::int64_t(sizeof(T)), &v,
                          sizeof(V), sim::detail::LdsMode::read, base.remote());
  return v;
}
template <class V, class T>
void lds_store_as(lds_ptr<T> base, std::ptrdiff_t elem, const V& v) {
  static_assert(std::is_trivially_copyable_v<V>);
  V tmp = v;
  sim::detail::lds_access(base.any_array(), base.byte_offset() + std::int64_t(elem) * std::int64_t(sizeof(T)), &tmp,
                          sizeof(V), sim::detail::LdsMode::write, base.remote());
}
template <class V, class T>
void global_to_lds(lds_ptr<T> dst, std::ptrdiff_t elem, const V* src) {
  sim::detail::preempt_global_access();
  lds_store_as<V>(dst, elem, *src);
}
template <class U, class T>
lds_ptr<U> lds_carve(lds_ptr<T> base, std::size_t byte_offset, std::size_t count, const char* name) {
  return lds_ptr<U>(sim::detail::lds_carve(base.array(), base.byte_offset() + std::int64_t(byte_offset),
                                           count * sizeof(U), name),
                    0);
}
template <class T>
T lds_atomic_add(lds_ptr<T> base, std::ptrdiff_t elem, T v) {
  sim::detail::preempt_point();
  const std::int64_t off = base.byte_offset() + std::int64_t(elem) * std::int64_t(sizeof(T));
  T old;
  sim::detail::lds_access(base.array(), off, &old, sizeof(T), sim::detail::LdsMode::atomic_read);
  T sum = static_cast<T>(old + v);
  sim::detail::lds_access(base.array(), off, &sum, sizeof(T), sim::detail::LdsMode::atomic_write);
  return old;
}
namespace sim::detail {
// A GPU faults on a global access that is not aligned to its size (a 16-byte vector at an 8-byte address): on sim
// the kernel thread throws, which fails the launch naming the block, thread and address.
template <class T>
void check_global_alignment(const T* p, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0)
    throw std::runtime_error(std::string("misaligned global ") + what + " of " + std::to_string(sizeof(T)) +
                             " B at address " + std::to_string(reinterpret_cast<std::uintptr_t>(p)) +
                             " (needs " + std::to_string(alignof(T)) + "-byte alignment; a GPU faults)");
}
}  // namespace sim::detail
template <class T>
T global_load(const T* p) {
  sim::detail::check_global_alignment(p, "load");
  sim::detail::preempt_global_access();
  return *p;
}
template <class T>
void global_store(T* p, const T& v) {
  sim::detail::check_global_alignment(p, "store");
  sim::detail::preempt_global_access();
  *p = v;
}

template <class... P, class... A>
void launch(void (*kernel)(P...), const LaunchConfig& cfg, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "launch: argument count differs from the kernel's parameters");
  std::tuple<std::decay_t<P>...> bound(static_cast<std::decay_t<P>>(std::forward<A>(args))...);
  sim::detail::enqueue_launch(cfg, [kernel, bound]() { std::apply(kernel, bound); });
}

}  // namespace dsv4::port
