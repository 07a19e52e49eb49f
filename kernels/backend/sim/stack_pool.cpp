// sim backend: fixed-size fiber stacks (mmap'd, one PROT_NONE guard page below each), pooled for reuse so that a
// launch of many blocks costs no mmap per thread and memory stays bounded by the threads alive at once.
#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

StackPool::StackPool(std::size_t bytes) : page_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) {
  bytes_ = (bytes + page_ - 1) / page_ * page_;
}

StackPool::~StackPool() {
  for (void* base : all_) ::munmap(base, bytes_ + page_);
}

ctx::stack_context StackPool::get() {
  void* base;
  if (!free_.empty()) {
    base = free_.back();
    free_.pop_back();
  } else {
    base = ::mmap(nullptr, bytes_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    ::mprotect(base, page_, PROT_NONE);  // guard: a stack overflow faults instead of corrupting a neighbour
    all_.push_back(base);
  }
  ctx::stack_context sc;
  sc.size = bytes_;
  sc.sp = static_cast<char*>(base) + page_ + bytes_;
  return sc;
}

void StackPool::put(ctx::stack_context& sc) noexcept {
  free_.push_back(static_cast<char*>(sc.sp) - bytes_ - page_);
}

}  // namespace dsv4::port::sim::detail
