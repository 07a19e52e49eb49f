// Shared by all backends: the bounded log of launches (LaunchRecord) that runtime.hpp exposes.
#pragma once

#include "kernels/port/arch.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::port::detail {
// Appends a record and returns its launch id (ids start at 1 and never repeat within a process).
// Also tells the runtime observer (on_launch) unless notify is false (sim's graph replay re-records its nodes; the
// observer hears the replay as one on_graph_launch instead).
std::uint64_t record_launch(const LaunchConfig& cfg, const void* stream_native, bool captured, bool notify = true);
// "kernel 'name' grid (x,y,z) block (x,y,z) dynamic LDS N B [cluster C]" for error messages.
std::string describe_launch(const LaunchConfig& cfg);
// Every backend's check of LaunchConfig::cluster_blocks against the target: "" when the launch may run, else the
// broken rule with the numbers (the backend throws it, naming the launch).
std::string cluster_problem(const LaunchConfig& cfg, const ArchProfile& target);
}  // namespace dsv4::port::detail
