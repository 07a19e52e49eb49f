// hipsim cross-launch race check. Every kernel launch and async copy/memset is an operation on a stream; the host
// API tells this file the order HIP gives them (same stream, hipStreamWaitEvent, host waits on streams, events or
// the device, the null stream's implicit synchronisation with blocking streams) at issue time, as one vector clock
// per stream. The bytes of hipMalloc allocations an operation actually touched arrive from the access hook while
// it runs (reads, writes and atomics apart, per source line). When an operation has run, it is checked against
// every operation that has run and is not ordered with it: overlapping bytes, at least one access a plain write (or
// an atomic against a plain access), are a `stream_race` finding naming both operations, their streams, the
// allocation, the first conflicting byte range and the source lines.
// Rules: the verdict depends on the issue order only, never on the order the sim ran them in; two atomics never
// race; bytes outside live hipMalloc allocations are not recorded (the bounds check reports those).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace hipsim::order {

using StreamKey = std::uint32_t;  // 0: the null stream; 1, 2, ...: streams in hipStreamCreate order
enum class Touch : unsigned char { read, write, atomic };

void add_stream(StreamKey s, bool blocking);  // blocking: synchronises with the null stream (hipStreamDefault)
// An operation issued on s, ordered now. `name`: "kernel 'K' (launch L)" or the API call; `launch_id`: the sim's
// launch id for kernels (their accesses arrive through touch_launch), 0 otherwise; `kernel`: the kernel's name (the
// findings' kernel field; empty: `name`). Returns its handle.
std::uint64_t issue(StreamKey s, std::string name, std::uint64_t launch_id, std::string kernel = {});
void touch(std::uint64_t op, std::uintptr_t p, std::size_t n, Touch t, const char* loc);
void touch_launch(std::uint64_t launch_id, std::uintptr_t p, std::size_t n, Touch t, const char* loc);
void executed(std::uint64_t op);  // its bytes are final: check it against every other operation that ran

void record_event(const void* event, StreamKey s);
void wait_event(StreamKey s, const void* event);
void forget_event(const void* event);  // destroyed: a new event at its address starts unrecorded
void host_waits_stream(StreamKey s);
void host_waits_event(const void* event);
void host_waits_all();

std::string stream_name(StreamKey s);
void name_stream(StreamKey s, std::string name);  // a stream of the check only (a graph node's): its name in findings

}  // namespace hipsim::order
