// Zoo entries of cross-stream workspace bugs of the skinny GEMM, caught by the stream-order race checker
// (kernels/race) fed from the port layer's launch log (every launch declares the byte ranges it reads and
// writes, workspace included; the verdict depends on the declared order only, not on timing):
//  3  static_shared_workspace: the kernel's own variant, one process-wide workspace for every stream;
//  4  a graph captured on stream A and replayed on stream B, its workspace slot keyed by the CAPTURE
//     stream: a mutant of the pool's choice (the slot of A instead of a capture slot), built on the public
//     API (caller-owned workspace), replayed on B while A runs a live launch.
// The correct implementations: the SkinnyWorkspacePool (one slot per stream, capture slots for graphs).
#include <fmt/format.h>

#include <cstring>
#include <random>

#include "fuzz/zoo/zoo_detail.hpp"
#include "kernels/port/runtime.hpp"
#include "kernels/race/stream_order_checker.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

using namespace dsv4::kernels::skinny;
namespace port = dsv4::port;

struct GemmIo {
  port::DeviceBuffer a, b, out;
  SkinnyBuffers io() const { return {a.data(), b.data(), nullptr, out.data()}; }
};

GemmIo make_io(const SkinnyShape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(-64, 64);
  auto bf16 = [&] {  // small bf16 values k/64, nonzero data
    const float f = static_cast<float>(u(rng)) / 64.0f + 0.0078125f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<std::uint16_t>(bits >> 16);
  };
  std::vector<std::uint16_t> a(static_cast<std::size_t>(s.n * s.k)), b(static_cast<std::size_t>(s.m * s.k));
  for (auto& x : a) x = bf16();
  for (auto& x : b) x = bf16();
  GemmIo g;
  g.a = port::DeviceBuffer::from_host<std::uint16_t>(a);
  g.b = port::DeviceBuffer::from_host<std::uint16_t>(b);
  g.out = port::DeviceBuffer(static_cast<std::size_t>(s.n * s.m) * 2);
  return g;
}

// Feeds the launches logged since the last clear (captured ones are in graphs, their replays are logged
// on the replay stream) to a fresh race checker; returns workspace races as findings.
Probe races_from_log() {
  race::StreamOrderChecker checker;
  for (const port::LaunchRecord& r : port::launch_log()) {
    if (r.captured) continue;
    std::vector<race::Range> ranges;
    for (const port::BufferRange& b : r.ranges) {
      const auto begin = reinterpret_cast<std::uintptr_t>(b.base);
      ranges.push_back({begin, begin + b.bytes, b.access == port::Access::read ? race::Access::read : race::Access::write,
                        b.name ? b.name : ""});
    }
    checker.launch(reinterpret_cast<race::StreamId>(r.stream), r.kernel_name, std::move(ranges));
  }
  Probe p;
  if (!checker.races().empty())
    p.findings.push_back({Detector::race_report, fmt::format("{} race(s), first: {}", checker.races().size(),
                                                             checker.races().front().str())});
  return p;
}

SkinnyShape shape_of(const ZooCase& c, const char* key) {
  SkinnyShape s;
  s.n = c.params[key]["n"].get<int>();
  s.m = c.params[key]["m"].get<int>();
  s.k = c.params[key]["k"].get<int>();
  return s;
}

std::vector<ZooCase> two_shape_cases() {
  std::vector<ZooCase> v;
  v.push_back({"A: N=17 M=32 K=1032, B: same", {{"a", {{"n", 17}, {"m", 32}, {"k", 1032}}},
                                                {"b", {{"n", 17}, {"m", 32}, {"k", 1032}}}}});
  v.push_back({"A: N=33 M=16 K=2056, B: N=12 M=48 K=520", {{"a", {{"n", 33}, {"m", 16}, {"k", 2056}}},
                                                           {"b", {{"n", 12}, {"m", 48}, {"k", 520}}}}});
  return v;
}

ZooEntry static_workspace_entry() {
  ZooEntry e;
  e.id = "3";
  e.title = "static split-K workspace shared by all streams";
  e.known_bugs_ref = "known-bugs #3";
  e.enable = "skinny_gemm variant static_shared_workspace via run_skinny_gemm on two unsynchronised streams";
  e.expected = Detector::race_report;
  e.diagnosis_must_contain = {"workspace"};
  e.cases = two_shape_cases();
  e.probe = [](const ZooCase& c, bool buggy) {
    const auto& prof = port::device_profile();
    SkinnyOptions o;
    o.variant = buggy ? SkinnyVariant::static_shared_workspace : SkinnyVariant::fixed;
    const SkinnyShape sa = shape_of(c, "a"), sb = shape_of(c, "b");
    const SkinnyPlan pa = make_plan(sa, prof, o), pb = make_plan(sb, prof, o);
    if (!pa.ok || !pb.ok) throw InputError("zoo 3: shape not admitted: " + pa.reason + pb.reason);
    if (buggy) (void)static_shared_workspace();  // created (zeroed) outside the logged window
    SkinnyWorkspacePool pool(2, std::size_t{4} << 20, 0);
    GemmIo ia = make_io(sa, 1), ib = make_io(sb, 2);
    port::Stream A, B;
    port::device_synchronize();
    port::clear_launch_log();
    for (int rep = 0; rep < 2; ++rep) {
      run_skinny_gemm(pa, ia.io(), pool, A);
      run_skinny_gemm(pb, ib.io(), pool, B);
    }
    port::device_synchronize();
    return races_from_log();
  };
  return e;
}

ZooEntry graph_capture_slot_entry() {
  ZooEntry e;
  e.id = "4";
  e.title = "graph captured on stream A, replayed on B, workspace slot keyed by the capture stream";
  e.known_bugs_ref = "known-bugs #3 (graph replay on another stream)";
  e.enable = "mutant slot choice (fuzz/zoo/zoo_streams.cpp): the capture uses stream A's pool slot through the "
             "caller-owned-workspace launch; correct: the pool's capture slot";
  e.expected = Detector::race_report;
  e.diagnosis_must_contain = {"workspace"};
  e.cases = two_shape_cases();
  e.probe = [](const ZooCase& c, bool buggy) {
    const auto& prof = port::device_profile();
    const SkinnyShape sa = shape_of(c, "a"), sb = shape_of(c, "b");
    const SkinnyPlan pg = make_plan(sa, prof), pl = make_plan(sb, prof);
    if (!pg.ok || !pl.ok) throw InputError("zoo 4: shape not admitted: " + pg.reason + pl.reason);
    SkinnyWorkspacePool pool(2, std::size_t{4} << 20, 2);
    GemmIo ig = make_io(sa, 3), il = make_io(sb, 4);
    port::Stream A, B;
    run_skinny_gemm(pl, il.io(), pool, A);  // A owns a live slot
    port::device_synchronize();
    port::clear_launch_log();
    // The bug: the graph's workspace is looked up by the stream doing the capture (A's live slot).
    SkinnyWorkspacePool::Lease slot_of_a;
    if (buggy) slot_of_a = pool.acquire(A, pg.workspace_bytes);
    A.begin_capture();
    if (buggy)
      launch_skinny_gemm(pg, ig.io(), slot_of_a.ptr, slot_of_a.bytes, A);
    else
      run_skinny_gemm(pg, ig.io(), pool, A);  // the pool hands out a capture slot
    port::Graph g = A.end_capture();
    port::GraphExec ge = g.instantiate();
    ge.launch(B);                           // replay on B ...
    run_skinny_gemm(pl, il.io(), pool, A);  // ... while A runs live, unsynchronised
    port::device_synchronize();
    return races_from_log();
  };
  return e;
}

}  // namespace

std::vector<ZooEntry> stream_entries() { return {static_workspace_entry(), graph_capture_slot_entry()}; }

}  // namespace dsv4::fuzz::zoo::detail
