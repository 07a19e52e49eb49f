// Kernel launches: hipLaunchKernelGGL(k, grid, block, lds, stream, args...) and the form hipsim/tools/chevrons.py
// rewrites `k<<<grid, block, lds, stream>>>(args...)` into (`k * hipsim_detail::Chevron{"k", grid, ...}(args...)`).
// The arguments are converted to the kernel's parameter types on the host and kept in kernel-argument memory (a
// readable allocation for the checks) until the launch completes.
#pragma once
#include <new>
#include <tuple>
#include <utility>

#include "hipsim/abi.h"

namespace hipsim_detail {
template <class... P>
__attribute__((disable_sanitizer_instrumentation)) void invoke(void* kernel, void* args) {
  std::apply(reinterpret_cast<void (*)(P...)>(kernel), *static_cast<std::tuple<P...>*>(args));
}
template <class... P>
void destroy(void* args) { static_cast<std::tuple<P...>*>(args)->~tuple(); }

template <class... P, class... A>
hipError_t launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, std::size_t lds, hipStream_t stream,
                  A&&... a) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong number of arguments");
  using Args = std::tuple<std::decay_t<P>...>;
  void* mem = __hipsim_kernargs(sizeof(Args));
  new (mem) Args(static_cast<std::decay_t<P>>(std::forward<A>(a))...);
  return static_cast<hipError_t>(__hipsim_enqueue(name, reinterpret_cast<void*>(kernel), grid, block, lds, stream,
                                                  &invoke<std::decay_t<P>...>, mem, &destroy<std::decay_t<P>...>));
}

template <class... A>
struct PendingLaunch {
  const char* name;
  dim3 grid, block;
  std::size_t lds;
  hipStream_t stream;
  std::tuple<A...> args;
};
struct Chevron {
  const char* name;
  dim3 grid, block;
  std::size_t lds = 0;
  hipStream_t stream = nullptr;
  template <class... A>
  PendingLaunch<A&&...> operator()(A&&... a) const {
    return {name, grid, block, lds, stream, std::forward_as_tuple(std::forward<A>(a)...)};
  }
};
template <class... P, class... A>
hipError_t operator*(void (*kernel)(P...), PendingLaunch<A...>&& l) {
  return std::apply([&](auto&&... a) { return launch(l.name, kernel, l.grid, l.block, l.lds, l.stream,
                                                     std::forward<decltype(a)>(a)...); }, std::move(l.args));
}
}  // namespace hipsim_detail

#define hipLaunchKernelGGL(kernel, grid, block, lds, stream, ...) \
  ::hipsim_detail::launch(#kernel, kernel, dim3(grid), dim3(block), lds, stream, ##__VA_ARGS__)
