// What each kernel's host plan says about its AMD launches, for `dsv4check kernels`: the largest dynamic LDS any
// admitted plan launches with, the plan's static LDS (cross-checked against the code object) and the workgroup
// size. The numbers come from the plan sweeps the kernel entries offer (kernels/plan_sweep.hpp, one per device
// kernel, kernels/<op>/*_plan_sweep.cpp), matched on the device kernel's qualified name; this file holds no per-op
// knowledge.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tools/dsv4check/amd_notes.hpp"

namespace dsv4::amd {

// The qualified function name of a demangled kernel symbol, without return type, template arguments, parameters
// or anonymous namespaces: "void a::(anonymous namespace)::k<8>(a::P)" -> "a::k".
std::string device_kernel_name(std::string_view demangled);

// The expectation for `demangled` (a kernel of the code object) on `arch` (the largest of every sweep that names
// it); nullopt when no sweep names it.
std::optional<KernelExpectation> plan_expectation(std::string_view demangled, std::string_view arch);

}  // namespace dsv4::amd
