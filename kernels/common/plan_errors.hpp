// with_plan_in_errors: runs a launcher's port::launch calls and rethrows a port::Error with the plan's one-line
// description appended ("<what> [<plan>]"), so that a refused or faulting launch names the plan it was made for.
#pragma once
#include <string>
#include <utility>

#include "kernels/port/runtime.hpp"

namespace dsv4::kernels {

template <class Launches>
void with_plan_in_errors(const std::string& plan, Launches&& launches) {
  try {
    std::forward<Launches>(launches)();
  } catch (const port::Error& e) {
    throw port::Error(std::string(e.what()) + " [" + plan + "]");
  }
}

}  // namespace dsv4::kernels
