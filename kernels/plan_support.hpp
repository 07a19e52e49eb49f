// Helpers shared by the kernels' host plans (make_<kernel>_plan): pure C++, no device code.
#pragma once
#include <string>
#include <utility>

namespace dsv4::kernels {

// Marks plan p refused (ok = false) with the rule or limit it breaks, and returns a copy of it: a plan maker's
// early `return refuse(p, why);`.
template <class Plan>
Plan refuse(Plan& p, std::string why) {
  p.ok = false;
  p.reason = std::move(why);
  return p;
}

}  // namespace dsv4::kernels
