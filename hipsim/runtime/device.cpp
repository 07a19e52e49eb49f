// hipsim runtime, device side: what the sim's HIP headers and the pass call from inside a kernel thread. Every
// instrumented access comes to __hipsim_access: an address in the block's LDS window goes to the sim's LDS checks
// (bounds with CDNA semantics, uninitialised reads, races through happens-before), with the variable the pass saw it
// derived from when known; anything else that is not the thread's stack must lie in a live device allocation.
// Invariants: the real load or store happens after the call returns, at the same address, so a write the checks
// drop lands in the window's guard (zeroed again before the next access of the block) and a read there sees 0;
// with Options::wave_lockstep each LDS access ends with the lane yielding to the next one, so lanes advance
// round-robin access by access as a wave does.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "hipsim/runtime/state.hpp"
#include "hipsim/runtime/stream_order.hpp"
#include "kernels/backend/sim/sim_internal.hpp"
#include "reference/formats/encode.hpp"
#include "reference/formats/mode.hpp"

namespace sd = dsv4::port::sim::detail;
using dsv4::port::sim::Violation;
using dsv4::port::sim::ViolationKind;

namespace {

enum : std::uint32_t { kWrite = 1, kAtomic = 2, kRead = 4, kDynamicLds = 8, kDeviceVar = 16 };  // = hipsim_pass.cpp

// Guard bytes a dropped write reached, to zero before the block's next access (epoch_base: the same block run).
struct DirtyGuard {
  sd::BlockExec* block;
  std::uint32_t epoch_base;
  std::size_t begin, end;
};
std::vector<DirtyGuard> g_dirty;

void zero_dirty(sd::BlockExec& b) {
  for (std::size_t i = 0; i < g_dirty.size();) {
    DirtyGuard& d = g_dirty[i];
    if (d.block != &b) { ++i; continue; }
    if (d.epoch_base == b.epoch_base) {
      const std::size_t from = std::max(d.begin, b.lds.size);
      if (from < d.end) std::memset(b.lds.data.data() + from, 0, d.end - from);
    }
    g_dirty[i] = g_dirty.back();
    g_dirty.pop_back();
  }
}

void annotate(std::size_t first, const char* loc) {
  if (!loc) return;
  auto& vs = sd::Executor::get().report.violations;
  for (std::size_t i = first; i < vs.size(); ++i) vs[i].detail += std::string(" at ") + loc;
}

// The lane's turn ends after each LDS access (Options::wave_lockstep): the next ready thread runs.
void lockstep_yield(sd::Executor& ex, sd::BlockExec& b) {
  b.ready.push_back(sd::g_current->linear);
  ex.yield_current(sd::ThreadState::ready);
}

void check_lds(sd::Executor& ex, sd::BlockExec& b, std::int64_t abs, std::size_t n, std::uint32_t flags,
               const void* site, const char* loc) {
  sd::LdsArena& a = b.lds;
  zero_dirty(b);
  const int arr = site                   ? sd::lds_static(static_cast<const sd::LdsSite*>(site))
                  : flags & kDynamicLds ? sd::lds_dynamic("extern __shared__")
                                        : hipsim::array_at(a, abs);
  const std::int64_t off = abs - a.arrays[std::size_t(arr)].begin;
  const std::size_t first = ex.report.violations.size();
  const std::size_t in_window = std::min<std::size_t>(n, a.data.size() - std::size_t(abs));
  std::vector<unsigned char> tmp(n, 0);
  const bool atomic = flags & kAtomic;
  if (flags & kRead)
    sd::lds_access(arr, off, tmp.data(), n, atomic ? sd::LdsMode::atomic_read : sd::LdsMode::read);
  if (flags & kWrite) {
    std::memcpy(tmp.data(), a.data.data() + abs, in_window);  // the checks "perform" what is already there
    sd::lds_access(arr, off, tmp.data(), n, atomic ? sd::LdsMode::atomic_write : sd::LdsMode::write);
  }
  annotate(first, loc);
  // CDNA: outside the allocation a read returns 0 and a write is dropped (zeroed before the next access).
  const std::size_t end = std::size_t(abs) + in_window;
  if (end > a.size) {
    const std::size_t from = std::max<std::size_t>(std::size_t(abs), a.size);
    if (flags & kWrite) g_dirty.push_back({&b, b.epoch_base, from, end});
    else std::memset(a.data.data() + from, 0, end - from);
  }
}

}  // namespace

namespace hipsim {

// The array an access without provenance belongs to: the one containing the byte, else the last one before it.
int array_at(sd::LdsArena& a, std::int64_t abs) {
  if (abs < std::int64_t(a.dynamic_bytes) || a.arrays.empty()) return sd::lds_dynamic("extern __shared__");
  int best = -1;
  for (std::size_t i = 0; i < a.arrays.size(); ++i) {
    const sd::LdsArray& x = a.arrays[i];
    if (x.begin <= abs && (best < 0 || x.begin > a.arrays[std::size_t(best)].begin)) best = int(i);
  }
  return best >= 0 ? best : sd::lds_dynamic("extern __shared__");
}

void check_global_access(sd::Executor& ex, sd::BlockExec& b, std::uintptr_t p, std::size_t n, std::uint32_t flags,
                         const void* site, const char* loc);

void check_global(sd::Executor& ex, sd::BlockExec& b, std::uintptr_t p, std::size_t n, bool write, const char* loc) {
  check_global_access(ex, b, p, n, write ? kWrite : kRead, nullptr, loc);
}

// flags: the pass's access flags (kWrite, kAtomic, kDeviceVar with `site` the variable's DeviceVarSite).
void check_global_access(sd::Executor& ex, sd::BlockExec& b, std::uintptr_t p, std::size_t n, std::uint32_t flags,
                         const void* site, const char* loc) {
  const auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (p + 256 >= sp && p < sp + ex.options.stack_bytes) return;  // the thread's own fiber stack
  const hipsim::Allocation* al = nullptr;
  if (flags & kDeviceVar) {  // checked against the variable the pointer came from, not a neighbour it ran into
    const auto& var = *static_cast<const hipsim::DeviceVarSite*>(site);
    hipsim::register_device_var(var);
    al = hipsim::find_allocation(reinterpret_cast<std::uintptr_t>(var.addr));
  } else {
    al = hipsim::find_allocation(p);
  }
  if (al && al->live && p >= al->base && p + n <= al->base + al->bytes) {
    if (al->tracked) {  // the user's memory: the bytes this launch touched, for the cross-launch race check
      using hipsim::order::Touch;
      const Touch t = flags & kAtomic ? Touch::atomic : flags & kWrite ? Touch::write : Touch::read;
      hipsim::order::touch_launch(b.launch->id, p, n, t, loc);
    }
    return;
  }
  Violation v = ex.make_violation(ViolationKind::global_out_of_range, &b, &ex.current_thread());
  const std::string what = std::string(flags & kWrite ? "write" : "read") + " of " + std::to_string(n) + " B";
  if (al) {
    v.array = al->name.empty() ? std::string(kind_name(al->kind)) : kind_name(al->kind) + (" " + al->name);
    v.offset = std::int64_t(p - al->base);
    v.array_bytes = al->bytes;
    v.detail = what + " at byte " + std::to_string(v.offset) + " of a " + std::to_string(al->bytes) + " B " +
               (al->name.empty() ? std::string(kind_name(al->kind)) + " allocation" : al->describe()) +
               (!al->live ? " that was freed" : p < al->base ? " (before its start)" : " (past its end)");
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%#zx", std::size_t(p));
    v.detail = what + " at " + buf + ", outside every device allocation (host memory or a wild pointer)";
  }
  v.size = n;
  if (loc) v.detail += std::string(" at ") + loc;
  ex.add_violation(v);
  if (!al) {  // nothing of ours is there: stop the thread before the access
    ex.fail_launch(b, v.detail);
    throw sd::LaunchAbort{};
  }
}

}  // namespace hipsim

extern "C" {

__hipsim_uint3 __hipsim_coord(int which) {
  const sd::ThreadCtx& c = *sd::g_current;
  const dsv4::port::Dim3& d = which == 0 ? c.thread_idx : which == 1 ? c.block_idx : which == 2 ? c.block_dim : c.grid_dim;
  return {d.x, d.y, d.z};
}

int __hipsim_lane() { return sd::g_current->lane; }

void* __hipsim_lds(const void* site) {
  if (!sd::g_current) {  // host code touching a __shared__ variable: give it storage of its own
    static std::map<const void*, std::vector<unsigned char>> host;
    auto& v = host[site];
    v.resize(static_cast<const sd::LdsSite*>(site)->bytes);
    return v.data();
  }
  sd::LdsArena& a = sd::g_current->block->lds;
  const int id = sd::lds_static(static_cast<const sd::LdsSite*>(site));
  return a.data.data() + a.arrays[std::size_t(id)].begin;
}

void* __hipsim_lds_dynamic() {
  if (!sd::g_current) return nullptr;
  sd::lds_dynamic("extern __shared__");
  return sd::g_current->block->lds.data.data();
}

void __hipsim_access(const void* addr, std::uint64_t bytes, std::uint32_t flags, const void* site, const char* loc) {
  static thread_local bool inside = false;  // the checks' own accesses are never checked
  sd::ThreadCtx* c = sd::g_current;
  if (!c || bytes == 0 || inside) return;
  hipsim::watchdog_tick(loc);
  struct Guard {
    Guard() { inside = true; }
    ~Guard() { inside = false; }
  };
  sd::Executor& ex = sd::Executor::get();
  sd::BlockExec& b = *c->block;
  const auto p = reinterpret_cast<std::uintptr_t>(addr);
  const auto base = reinterpret_cast<std::uintptr_t>(b.lds.data.data());
  if (p >= base && p - base < b.lds.data.size()) {
    {
      Guard guard;
      hipsim::dma_before_lds_access(b, std::int64_t(p - base), std::size_t(bytes), (flags & kWrite) != 0);
      check_lds(ex, b, std::int64_t(p - base), std::size_t(bytes), flags, site, loc);
    }
    if (ex.options.wave_lockstep) lockstep_yield(ex, b);  // outside the guard: other fibers check while we wait
    return;
  }
  Guard guard;
  hipsim::check_global_access(ex, b, p, std::size_t(bytes), flags, site, loc);
}

std::uint64_t __hipsim_wave_vote(int op, int pred, const std::source_location* loc) {
  hipsim::watchdog_tick(nullptr);
  return sd::wave_vote(static_cast<sd::WaveOp>(op), pred != 0, *loc);
}

void __hipsim_wave_exchange(int op, const void* value, std::size_t bytes, int src_lane, void* out,
                            const std::source_location* loc) {
  hipsim::watchdog_tick(nullptr);
  sd::wave_exchange(static_cast<sd::WaveOp>(op), value, bytes, src_lane, out, *loc);
}

void __hipsim_wave_collective(__hipsim_wave_fn fn, const void* user, const void* in, void* out,
                              const std::source_location* loc) {
  hipsim::watchdog_tick(nullptr);
  sd::wave_collective(fn, user, in, out, *loc);
}

void __hipsim_syncthreads(const std::source_location* loc) {
  hipsim::watchdog_tick(nullptr);
  hipsim::dma_wait(0);  // the workgroup release fence waits for the lane's LDS DMA (hipsim/runtime/lds_dma.cpp)
  sd::BlockExec& b = *sd::g_current->block;
  if (b.live < b.nthreads && b.barrier_arrived + 1 == b.live) hipsim::report_exited_waves(b, *loc);
  sd::syncthreads(*loc);
}

void __hipsim_fence() {
  if (sd::g_current) hipsim::watchdog_tick(nullptr);
  sd::preempt_point();
}

std::uint16_t __hipsim_f32_to_bf16_rn(float x) {
  static const dsv4::formats::FastEncoder enc(dsv4::formats::Format::bf16,
                                              dsv4::formats::parse_mode("bf16-rne:nan=quiet-keep"));
  return static_cast<std::uint16_t>(enc(x));
}
std::uint16_t __hipsim_f32_to_f16_rn(float x) {
  static const dsv4::formats::FastEncoder enc(dsv4::formats::Format::fp16, dsv4::formats::parse_mode("rne-nonsat"));
  return static_cast<std::uint16_t>(enc(x));
}
float __hipsim_f16_to_f32(std::uint16_t h) { return dsv4::formats::decode_f32(dsv4::formats::Format::fp16, h); }

}  // extern "C"
