// global_load_lds on the sim: the asynchronous global -> LDS DMA of hipsim/amdgcn_mem.h and the vmcnt counter that
// retires it. Rules (AMD CDNA3 ISA guide, "Global, Scratch and Flat Instructions" (LDS DMA: the LDS address comes from
// M0) and "SOPP" S_WAITCNT; CDNA4 guide for the 12- and 16-byte forms; clang-22's AMDGPU builtin documentation):
// - Lane k loads `size` bytes from its own src + offset and writes them at M0 + offset + k * stride, stride 4 for
//   size <= 4, 16 for 12 and 16 bytes. Lanes the branch left inactive write nothing (their slot keeps its contents).
// - M0 is wave-uniform: clang reads it from the first active lane (v_readfirstlane). The sim takes the base of the
//   lowest lane that issued that instance, decided when a lane's part lands (by then the wave's lanes have issued it),
//   and reports every lane whose own pointer differs as wave_divergence; that lane still writes at
//   M0 + offset + k * stride, as hardware would. An instance is the n-th execution of one call site by each lane.
// - The load is a VMEM operation: it counts in the wave's vmcnt and lands when a wait covers it. s_waitcnt vmcnt(N)
//   retires the wave's oldest loads until at most N remain (they retire in order); the workgroup release fence of
//   __syncthreads waits vmcnt(0) for LDS DMA (clang-22, LLVM's lds-dma-workgroup-release test), and so does the end
//   of the thread. Each lane lands its own part at its own wait; the count N is over the wave's instances (a lane that
//   skipped one still counts it).
// - An LDS access by the same wave to bytes still in flight: clang's waitcnt insertion puts a vmcnt wait before any
//   LDS access that may alias an LDS DMA of the wave, so the wave's in-flight loads up to that one land first (no
//   finding). By another wave: nothing orders it, so it is lds_async_read_before_wait (once per instance and reader
//   wave) naming the issuing wave, lane and site; the access sees the old contents.
// - Landing goes through the sim's LDS checks as the issuing lane's write: outside the workgroup's LDS it is dropped
//   and reported as lds_out_of_range (array, offset, "outside the block's LDS: dropped"), and it counts for the
//   uninitialised-read and race checks. The global read is checked at issue like any global access.
// Invariant: the state of a block run is keyed by (block, epoch_base); a stale one is dropped at its first use.
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "hipsim/include/hipsim/abi_mem.h"
#include "hipsim/runtime/state.hpp"
#include "kernels/backend/sim/sim_internal.hpp"

namespace sd = dsv4::port::sim::detail;
using dsv4::port::sim::Violation;
using dsv4::port::sim::ViolationKind;

namespace {

using Site = std::tuple<const char*, unsigned, unsigned>;  // file, line, column of the call

struct Pending {
  int thread = 0;           // issuing thread (linear)
  std::uint64_t seq = 0;    // its instance in the wave
  int instance = 0;         // index in BlockDma::instances
  std::int64_t own = 0;     // the LDS window byte the lane passed as the base
  int offset = 0;
  std::int64_t abs = 0;     // LDS window byte of the first written byte (M0 as known at issue; fixed at landing)
  unsigned n = 0;
  unsigned char bytes[16] = {};
  std::string site;
  bool live = true;
};

struct Instance {
  std::uint64_t seq = 0;
  std::int64_t m0 = 0;  // the base of the lowest lane that issued it
  int low_lane = 0;
  int joined = 0;
};

struct WaveDma {
  std::uint64_t issued = 0;  // instances so far
  std::map<std::pair<Site, unsigned>, int> open;  // instances not every lane has joined yet (index)
};

struct BlockDma {
  sd::BlockExec* block = nullptr;
  std::uint32_t epoch_base = 0;
  std::vector<WaveDma> waves;
  std::vector<std::map<Site, unsigned>> visits;  // per thread: executions of each site
  std::vector<std::deque<int>> queue;            // per thread: its pending entries, oldest first
  std::vector<Pending> entries;
  std::vector<Instance> instances;
  std::vector<int> owner;  // per LDS window byte: the newest pending entry writing it, or -1
  std::set<std::pair<std::uint64_t, int>> reported;  // (wave << 32 | seq, reader wave)
  int live = 0;
};
std::deque<BlockDma> g_blocks;  // stable addresses: one per block slot of the executor

BlockDma* find(sd::BlockExec& b, bool create) {
  BlockDma* slot = nullptr;
  for (BlockDma& d : g_blocks)
    if (d.block == &b) {
      if (d.epoch_base == b.epoch_base) return &d;
      slot = &d;
      break;
    }
  if (!create) return nullptr;
  if (!slot) slot = &g_blocks.emplace_back();
  *slot = BlockDma{};
  slot->block = &b;
  slot->epoch_base = b.epoch_base;
  slot->waves.resize(std::size_t(b.nwaves));
  slot->visits.resize(std::size_t(b.nthreads));
  slot->queue.resize(std::size_t(b.nthreads));
  slot->owner.assign(b.lds.data.size(), -1);
  return slot;
}

// Runs the check code as thread `linear` of the block (the issuing lane), restoring the current thread after.
struct AsThread {
  sd::ThreadCtx* saved;
  AsThread(sd::BlockExec& b, int linear) : saved(sd::g_current) {
    sd::g_current = &b.threads[std::size_t(linear)].ctx;
  }
  ~AsThread() { sd::g_current = saved; }
};

void land(BlockDma& d, sd::BlockExec& b, int idx) {
  Pending& e = d.entries[std::size_t(idx)];
  if (!e.live) return;
  e.live = false;
  --d.live;
  for (unsigned i = 0; i < e.n; ++i) {
    const std::int64_t p = e.abs + i;
    if (p >= 0 && p < std::int64_t(d.owner.size()) && d.owner[std::size_t(p)] == idx) d.owner[std::size_t(p)] = -1;
  }
  sd::Executor& ex = sd::Executor::get();
  AsThread as(b, e.thread);
  const Instance& in = d.instances[std::size_t(e.instance)];
  const int lane = e.thread % b.wave_size;
  e.abs = in.m0 + e.offset + std::int64_t(lane) * (e.n <= 4 ? 4 : 16);
  if (e.own != in.m0) {
    Violation v = ex.make_violation(ViolationKind::wave_divergence, &b, &ex.current_thread());
    v.detail = "global_load_lds: lane " + std::to_string(lane) + " of wave " + std::to_string(e.thread / b.wave_size) +
               " passed LDS byte " + std::to_string(e.own) + " as the base, lane " + std::to_string(in.low_lane) +
               " (the first active lane) LDS byte " + std::to_string(in.m0) +
               "; the base is M0, one per wave: the lane writes at lane " + std::to_string(in.low_lane) +
               "'s base at " + e.site;
    ex.add_violation(v);
  }
  const int arr = hipsim::array_at(b.lds, e.abs);
  const std::size_t first = ex.report.violations.size();
  sd::lds_access(arr, e.abs - b.lds.arrays[std::size_t(arr)].begin, e.bytes, e.n, sd::LdsMode::write);
  auto& vs = ex.report.violations;
  for (std::size_t i = first; i < vs.size(); ++i)
    vs[i].detail += " (global_load_lds of wave " + std::to_string(e.thread / b.wave_size) + " lane " +
                    std::to_string(e.thread % b.wave_size) + ", LDS byte " + std::to_string(e.abs) + ") at " + e.site;
}

// Lands, for every lane of wave w, its entries of instances up to `seq` (a wait of the whole wave).
void land_wave_upto(BlockDma& d, sd::BlockExec& b, int w, std::uint64_t seq) {
  const int base = w * b.wave_size, n = b.wave_lanes(w);
  for (int l = 0; l < n; ++l) {
    std::deque<int>& q = d.queue[std::size_t(base + l)];
    while (!q.empty() && d.entries[std::size_t(q.front())].seq <= seq) {
      land(d, b, q.front());
      q.pop_front();
    }
  }
}

std::string where(const std::source_location* loc) {
  return std::string(loc->file_name()) + ":" + std::to_string(loc->line());
}

}  // namespace

namespace hipsim {

void dma_before_lds_access(sd::BlockExec& b, std::int64_t abs, std::size_t n, bool write) {
  BlockDma* d = find(b, false);
  if (!d || d->live == 0) return;
  sd::ThreadCtx& me = *sd::g_current;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t p = abs + std::int64_t(i);
    if (p < 0 || p >= std::int64_t(d->owner.size())) continue;
    const int idx = d->owner[std::size_t(p)];
    if (idx < 0) continue;
    const Pending& e = d->entries[std::size_t(idx)];
    const int w = e.thread / b.wave_size;
    if (w == me.wave) {
      land_wave_upto(*d, b, w, e.seq);
      continue;
    }
    if (!d->reported.insert({std::uint64_t(w) << 32 | e.seq, me.wave}).second) continue;
    sd::Executor& ex = sd::Executor::get();
    Violation v = ex.make_violation(ViolationKind::lds_async_read_before_wait, &b, &ex.current_thread());
    const int arr = array_at(b.lds, p);
    const sd::LdsArray& a = b.lds.arrays[std::size_t(arr)];
    v.array = a.name;
    v.offset = p - a.begin;
    v.size = n;
    v.array_bytes = a.bytes;
    v.detail = std::string(write ? "write" : "read") + " of " + std::to_string(n) + " B at LDS byte " +
               std::to_string(p) + " (wave " + std::to_string(me.wave) + " lane " + std::to_string(me.lane) +
               ") before the global_load_lds of wave " + std::to_string(w) + " lane " +
               std::to_string(e.thread % b.wave_size) + " issued at " + e.site +
               " landed (no s_waitcnt vmcnt or __syncthreads of wave " + std::to_string(w) +
               " covers it yet): the access sees the old contents";
    ex.add_violation(v);
  }
}

void dma_wait(int vmcnt) {
  sd::ThreadCtx* c = sd::g_current;
  if (!c) return;
  BlockDma* d = find(*c->block, false);
  if (!d) return;
  std::deque<int>& q = d->queue[std::size_t(c->linear)];
  const std::uint64_t issued = d->waves[std::size_t(c->wave)].issued;
  while (!q.empty() && d->entries[std::size_t(q.front())].seq + std::uint64_t(vmcnt < 0 ? 0 : vmcnt) < issued) {
    land(*d, *c->block, q.front());
    q.pop_front();
  }
}

}  // namespace hipsim

extern "C" void __hipsim_global_load_lds(const void* src, void* lds, unsigned size, int offset, unsigned,
                                         const std::source_location* loc) {
  sd::ThreadCtx* c = sd::g_current;
  if (!c) return;
  // The target's sizes are checked at compile time (hipsim/abi_mem.h); here only what the instruction family has.
  if (size != 1 && size != 2 && size != 4 && size != 12 && size != 16)
    throw std::runtime_error("global_load_lds of " + std::to_string(size) + " B: not a size of the instruction");
  sd::Executor& ex = sd::Executor::get();
  sd::BlockExec& b = *c->block;
  const std::string site = where(loc);
  const auto g = reinterpret_cast<std::uintptr_t>(src) + std::uintptr_t(std::intptr_t(offset));
  hipsim::check_global(ex, b, g, size, false, site.c_str());
  const auto base = reinterpret_cast<std::uintptr_t>(b.lds.data.data());
  const auto l = reinterpret_cast<std::uintptr_t>(lds);
  if (l < base || l - base >= b.lds.data.size())
    throw std::runtime_error("global_load_lds at " + site + ": the LDS pointer is not in the block's LDS");
  const std::int64_t mine = std::int64_t(l - base);
  BlockDma& d = *find(b, true);
  const Site key{loc->file_name(), loc->line(), loc->column()};
  const unsigned visit = d.visits[std::size_t(c->linear)][key]++;
  WaveDma& w = d.waves[std::size_t(c->wave)];
  auto [it, fresh] = w.open.try_emplace({key, visit}, int(d.instances.size()));
  if (fresh) d.instances.push_back(Instance{w.issued++, mine, c->lane, 0});
  Instance& in = d.instances[std::size_t(it->second)];
  if (c->lane < in.low_lane) {
    in.low_lane = c->lane;
    in.m0 = mine;
  }
  Pending e;
  e.thread = c->linear;
  e.seq = in.seq;
  e.instance = it->second;
  e.own = mine;
  e.offset = offset;
  e.abs = in.m0 + offset + std::int64_t(c->lane) * (size <= 4 ? 4 : 16);
  e.n = size;
  std::memcpy(e.bytes, reinterpret_cast<const void*>(g), size);
  e.site = site;
  if (++in.joined == b.wave_lanes(c->wave)) w.open.erase(it);
  const int idx = int(d.entries.size());
  d.entries.push_back(std::move(e));
  ++d.live;
  d.queue[std::size_t(c->linear)].push_back(idx);
  const Pending& pe = d.entries.back();
  for (unsigned i = 0; i < pe.n; ++i) {
    const std::int64_t p = pe.abs + i;
    if (p >= 0 && p < std::int64_t(d.owner.size())) d.owner[std::size_t(p)] = idx;
  }
  if (ex.options.wave_lockstep) {  // an LDS access: the lane's turn ends, as in __hipsim_access
    b.ready.push_back(c->linear);
    ex.yield_current(sd::ThreadState::ready);
  }
}

extern "C" void __hipsim_vmcnt_wait(int vmcnt) { hipsim::dma_wait(vmcnt); }
