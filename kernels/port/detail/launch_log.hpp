// Shared by all backends: the bounded log of launches (LaunchRecord) that runtime.hpp exposes.
#pragma once

#include "kernels/port/runtime.hpp"

namespace dsv4::port::detail {
// Appends a record and returns its launch id (ids start at 1 and never repeat within a process).
std::uint64_t record_launch(const LaunchConfig& cfg, const void* stream_native, bool captured);
// "kernel 'name' grid (x,y,z) block (x,y,z) dynamic LDS N B" for error messages.
std::string describe_launch(const LaunchConfig& cfg);
}  // namespace dsv4::port::detail
