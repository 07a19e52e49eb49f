// What each kernel's host plan says about its AMD launches, for `dsv4check kernels`: the largest dynamic LDS any
// admitted plan launches with, the plan's static LDS (cross-checked against the code object), the workgroup size
// and whether scratch is allowed. One entry per kernel family, matched on the demangled kernel name; a new kernel
// adds its entry in amd_kernel_plans.cpp (until then `dsv4check kernels` warns that it has no plan).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tools/dsv4check/amd_notes.hpp"

namespace dsv4::amd {

// The expectation for `demangled` (a kernel of the code object) on `arch`; nullopt when no plan is registered.
std::optional<KernelExpectation> plan_expectation(std::string_view demangled, std::string_view arch);

}  // namespace dsv4::amd
