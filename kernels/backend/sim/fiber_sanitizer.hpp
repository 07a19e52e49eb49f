// sim backend: tells AddressSanitizer about the executor's fiber switches. Debian's Boost.Context is built without
// BOOST_USE_ASAN, so without this ASan believes a fiber still runs on the scheduler's stack, and an exception thrown
// on a fiber (__asan_handle_no_return) unpoisons the wrong stack (issue 35). Outside ASan builds every call is empty.
//
// Rule: every switch between the scheduler and a fiber is bracketed. The side that leaves calls *_leaves just before
// the switch, the side that arrives calls *_arrives first thing after it; ASan pairs each start with the next finish,
// so no annotated switch may be followed by an unannotated one in between. The one unannotated round trip is inside
// Boost's fiber constructor (it enters the new stack and comes straight back without throwing), where ASan's stack
// bounds are not consulted. A ThreadSanitizer build does not exist (no preset), so the TSan fiber API is not wired.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define DSV4_SIM_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DSV4_SIM_ASAN_FIBERS 1
#endif
#endif

#ifdef DSV4_SIM_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

namespace dsv4::port::sim::detail {

// One fiber's stack as ASan sees it, plus the scheduler's (one scheduler per OS thread).
class FiberSanitizer {
 public:
  // The fiber's stack, recorded when Boost.Context allocates it (PooledStack).
  void set_stack(const boost::context::stack_context& sc) {
    bottom_ = static_cast<const char*>(sc.sp) - sc.size;
    size_ = sc.size;
  }

  // Scheduler side: around a resume of (or an unwind into) this fiber.
  void scheduler_leaves() {
#ifdef DSV4_SIM_ASAN_FIBERS
    __sanitizer_start_switch_fiber(&scheduler().fake_stack, bottom_, size_);
#endif
  }
  void scheduler_arrives() {
#ifdef DSV4_SIM_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(scheduler().fake_stack, nullptr, nullptr);
#endif
  }

  // Fiber side: after it gets control, and before it hands control back (`finished`: it never runs again).
  void fiber_arrives() {
#ifdef DSV4_SIM_ASAN_FIBERS
    Scheduler& s = scheduler();
    __sanitizer_finish_switch_fiber(fake_stack_, &s.bottom, &s.size);
#endif
  }
  void fiber_leaves(bool finished) {
#ifdef DSV4_SIM_ASAN_FIBERS
    const Scheduler& s = scheduler();
    __sanitizer_start_switch_fiber(finished ? nullptr : &fake_stack_, s.bottom, s.size);
#else
    (void)finished;
#endif
  }

 private:
  struct Scheduler {
    const void* bottom = nullptr;
    std::size_t size = 0;
    void* fake_stack = nullptr;
  };
  static Scheduler& scheduler() {
    static thread_local Scheduler s;
    return s;
  }
  const void* bottom_ = nullptr;
  std::size_t size_ = 0;
  void* fake_stack_ = nullptr;  // the fiber's ASan fake stack while it is suspended
};

}  // namespace dsv4::port::sim::detail
