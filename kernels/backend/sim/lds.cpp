// sim backend: the per-block LDS arena. Arrays are placed on first declaration (dynamic region first, then static
// arrays in declaration order, 16-byte aligned); the arena is exactly that big. Every access is checked against the
// array it is made through and against the arena (CDNA: outside the arena a write is dropped, a read returns 0; an
// access that straddles the arena's end is performed and tracked for its bytes inside, byte by byte),
// and shadow bytes (the last write and the reads since it: epoch, thread, clock) give uninitialised-read and hazard
// reports. Epochs are global and increase at every block start and barrier, so shadow state never needs clearing;
// within an epoch, accesses are ordered by transaction barriers (happens_before.hpp).
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "kernels/backend/sim/sim_internal.hpp"

namespace dsv4::port::sim::detail {

namespace {
BlockExec& current_block() { return *g_current->block; }

int find_or_add(LdsArena& a, const void* key, std::int64_t key_offset, const char* name, std::int64_t begin,
                std::size_t bytes) {
  for (std::size_t i = 0; i < a.arrays.size(); ++i)
    if (a.arrays[i].key == key && a.arrays[i].key_offset == key_offset && a.arrays[i].bytes == bytes)
      return static_cast<int>(i);
  a.arrays.push_back(LdsArray{name, begin, bytes, key, key_offset});
  return static_cast<int>(a.arrays.size() - 1);
}

void report_access(Executor& ex, ViolationKind k, const LdsArray& arr, std::int64_t off, std::size_t n,
                   std::string detail) {
  BlockExec& b = current_block();
  Violation v = ex.make_violation(k, &b, &ex.current_thread());
  v.array = arr.name;
  v.offset = off;
  v.size = n;
  v.array_bytes = arr.bytes;
  v.detail = std::move(detail);
  ex.add_violation(std::move(v));
}
}  // namespace

int lds_static(const LdsSite* site) {
  Executor& ex = Executor::get();
  BlockExec& b = current_block();
  LdsArena& a = b.lds;
  for (std::size_t i = 0; i < a.arrays.size(); ++i)
    if (a.arrays[i].key == site) return static_cast<int>(i);
  const std::size_t begin = (a.size + site->align - 1) / site->align * site->align;
  if (begin + site->bytes > ex.profile->lds_bytes_per_block) {
    Violation v = ex.make_violation(ViolationKind::lds_capacity, &b, &ex.current_thread());
    v.array = site->name;
    v.size = begin + site->bytes;
    v.array_bytes = site->bytes;
    v.detail = "static + dynamic LDS " + std::to_string(begin + site->bytes) + " B exceeds the " +
               std::string(ex.profile->name) + " capacity of " + std::to_string(ex.profile->lds_bytes_per_block) +
               " B";
    ex.add_violation(v);
    ex.fail_launch(b, v.detail);
    throw LaunchAbort{};
  }
  a.size = begin + site->bytes;
  a.arrays.push_back(LdsArray{site->name, static_cast<std::int64_t>(begin), site->bytes, site, 0});
  return static_cast<int>(a.arrays.size() - 1);
}

int lds_dynamic(const char* name) {
  LdsArena& a = current_block().lds;
  return find_or_add(a, nullptr, 0, name, 0, a.dynamic_bytes);
}

std::int64_t lds_arena_offset(int array, std::int64_t byte_offset) {
  return current_block().lds.arrays.at(static_cast<std::size_t>(array)).begin + byte_offset;
}

int lds_carve(int parent, std::int64_t byte_offset, std::size_t bytes, const char* name) {
  LdsArena& a = current_block().lds;
  const LdsArray p = a.arrays.at(static_cast<std::size_t>(parent));
  return find_or_add(a, name, p.begin + byte_offset, name, p.begin + byte_offset, bytes);
}

[[noreturn]] void lds_remote_misuse() {
  throw std::runtime_error("an LDS pointer into another workgroup of the cluster (port::cluster_lds) reached an "
                           "operation on the workgroup's own LDS only (carving, copies into LDS, MMA operands, "
                           "transaction barriers): only element access and lds_load_as / lds_store_as may use it");
}

int cluster_array(BlockExec* remote, int local_array) {
  if (!remote) return local_array;
  const LdsArray& a = current_block().lds.arrays.at(static_cast<std::size_t>(local_array));
  return find_or_add(remote->lds, a.key, a.key_offset, a.name, a.begin, a.bytes);
}

namespace {
std::string cluster_peer(const BlockExec& owner) {
  return "workgroup " + to_string(owner.block_idx) + " (cluster rank " + std::to_string(owner.cluster_rank) + ")";
}
}  // namespace

namespace {
// What happens to an access not wholly inside the arena: dropped / read as 0, or, for one that straddles an end of
// the arena, the bytes inside performed and the rest dropped / read as 0.
std::string arena_note(std::int64_t abs, std::size_t n, std::size_t size, bool is_write) {
  const std::int64_t inside = std::min<std::int64_t>(abs + std::int64_t(n), std::int64_t(size)) - std::max<std::int64_t>(abs, 0);
  const std::string rest = is_write ? "dropped" : "read 0";
  if (inside <= 0) return " (outside the block's LDS: " + rest + ")";
  return " (straddles the end of the block's LDS: the " + std::to_string(inside) + " B inside " +
         (is_write ? "written" : "read") + ", the rest " + rest + ")";
}
}  // namespace

void lds_access(int array, std::int64_t off, void* buf, std::size_t n, LdsMode mode, BlockExec* remote) {
  Executor& ex = Executor::get();
  BlockExec& b = current_block();
  BlockExec& owner = remote ? *remote : b;  // whose LDS the access reaches
  LdsArena& a = owner.lds;
  const LdsArray& arr = a.arrays[static_cast<std::size_t>(array)];
  const bool is_write = mode == LdsMode::write || mode == LdsMode::atomic_write;
  const bool atomic = mode == LdsMode::atomic_read || mode == LdsMode::atomic_write;
  auto* bytes = static_cast<unsigned char*>(buf);
  std::int64_t abs = arr.begin + off;
  const bool in_array = off >= 0 && off + std::int64_t(n) <= std::int64_t(arr.bytes);
  const bool in_arena = abs >= 0 && abs + std::int64_t(n) <= std::int64_t(a.size);
  const Options& o = ex.options;
  if (remote && owner.live == 0) {  // its LDS is gone on a GPU: always a failure
    report_access(ex, ViolationKind::cluster_lds, arr, off, n,
                  std::string(is_write ? "write to" : "read of") + " the LDS of " + cluster_peer(owner) +
                      ", which has exited (a port::cluster_sync must precede its exit)");
    ex.fail_launch(b, "access to the LDS of an exited workgroup of the cluster");
    throw LaunchAbort{};
  }
  if ((!in_array || !in_arena) && o.check_lds) {
    report_access(ex, ViolationKind::lds_out_of_range, arr, off, n,
                  std::string(is_write ? "write" : "read") + " of " + std::to_string(n) + " B at byte offset " +
                      std::to_string(off) + " of a " + std::to_string(arr.bytes) + " B array" +
                      (remote ? " of " + cluster_peer(owner) : std::string()) +
                      (in_arena ? std::string(" (inside the block's LDS: performed)") : arena_note(abs, n, a.size, is_write)));
  }
  if ((!in_array || !in_arena) && o.check_lds && o.fail_on_violation) {
    ex.fail_launch(b, "LDS access out of range of array '" + std::string(arr.name) + "'");
    throw LaunchAbort{};
  }
  if (!in_arena) {  // CDNA: per byte, the part inside the arena performed, the rest dropped / read as zero
    const std::int64_t lo = std::max<std::int64_t>(abs, 0);
    const std::int64_t hi = std::min<std::int64_t>(abs + std::int64_t(n), std::int64_t(a.size));
    if (!is_write)
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t p = abs + std::int64_t(i);
        if (p < lo || p >= hi) bytes[i] = 0;
      }
    if (lo >= hi) return;
    // The part inside the arena is an ordinary access of those bytes: written-byte, race and uninitialised-read
    // tracking apply to it as to any other (a later read of bytes a straddling write did store is no finding).
    bytes += lo - abs;
    n = static_cast<std::size_t>(hi - lo);
    off += lo - abs;
    abs = lo;
  }
  // Shadow ids: the thread's own, or for an access from another block of the cluster, kRemoteTid | rank | thread.
  const auto tid = static_cast<std::uint16_t>(
      remote ? kRemoteTid | (b.cluster_rank << 10) | g_current->linear : g_current->linear);
  const std::uint32_t epoch = owner.epoch;
  // Accesses of different blocks are ordered by cluster barriers only: since the owner's last one, a remote access
  // conflicts with any other access of the byte (one a write), an owner's access with a remote one (cross_hazard).
  // (An owner's access is missed when a remote read was merged into "several readers" of one epoch.)
  auto cross = [&](std::uint32_t at, std::uint16_t who) {
    return at >= owner.cluster_epoch && who != tid && (remote || is_remote_tid(who));
  };
  ShadowByte* sh = &a.shadow[static_cast<std::size_t>(abs)];
  bool uninit = false, hazard = false, cross_hazard = false;
  int other = -1;
  // Happens-before within the epoch (happens_before.hpp): the owner's threads only; an access from another block
  // is ordered by cluster barriers alone.
  HappensBefore& hb = owner.hb;
  const int me = g_current->linear;
  const std::uint32_t clk = remote ? 0 : hb.clock(me);
  // Options::wave_lockstep: another lane of the same wave is ordered with this one (lanes run in lockstep).
  auto same_wave = [&](std::uint16_t who) {
    return o.wave_lockstep && !remote && who < owner.nthreads && who / owner.wave_size == me / owner.wave_size;
  };
  auto ordered = [&](std::uint16_t who, std::uint32_t at) {
    return who == tid || (!remote && hb.ordered(me, who, at)) || same_wave(who);
  };
  // The bytes of one access mostly share one shadow state: each distinct state is worked out once.
  ShadowByte seen_in{}, seen_out{};
  bool have_seen = false;
  if (is_write) std::memcpy(&a.data[static_cast<std::size_t>(abs)], bytes, n);
  else std::memcpy(bytes, &a.data[static_cast<std::size_t>(abs)], n);
  for (std::size_t i = 0; i < n; ++i) {
    ShadowByte& s = sh[i];
    if (have_seen && s == seen_in) {
      s = seen_out;
      continue;
    }
    seen_in = s;
    have_seen = true;
    if (is_write) {
      if (!atomic) {
        if (s.w_epoch == epoch && !ordered(s.w_tid, s.w_clock)) { hazard = true; other = s.w_tid; }
        if (s.r_epoch == epoch) {
          if (s.r_tid == kMultiReaders) {
            const int r = (s.r_clock == kNoSet || remote) ? -1 : hb.unordered_reader(s.r_clock, me);
            if (s.r_clock == kNoSet || remote || r >= 0) { hazard = true; other = r >= 0 ? r : kMultiReaders; }
          } else if (!ordered(s.r_tid, s.r_clock)) {
            hazard = true;
            other = s.r_tid;
          }
        }
        if (cross(s.w_epoch, s.w_tid) || cross(s.r_epoch, s.r_tid)) cross_hazard = true;
        s.r_epoch = 0;  // the reads were checked against this write; later accesses are checked against the write
      }
      s.w_epoch = epoch;
      s.w_tid = atomic ? kAtomicWriter : tid;
      s.w_clock = clk;
    } else {
      if (s.w_epoch < owner.epoch_base) uninit = true;
      if (!atomic && s.w_epoch == epoch && !ordered(s.w_tid, s.w_clock)) { hazard = true; other = s.w_tid; }
      if (!atomic && cross(s.w_epoch, s.w_tid)) cross_hazard = true;
      if (s.r_epoch != epoch) {
        s.r_epoch = epoch;
        s.r_tid = tid;
        s.r_clock = clk;
      } else if (s.r_tid == tid) {
        s.r_clock = clk;
      } else if (s.r_tid == kMultiReaders) {
        s.r_clock = (s.r_clock == kNoSet || remote || !hb.precise) ? kNoSet : hb.add_reader(s.r_clock, tid, clk);
      } else if (ordered(s.r_tid, s.r_clock)) {  // the earlier read happens before this one: this one stands for both
        s.r_tid = tid;
        s.r_clock = clk;
      } else {
        const bool track = hb.precise && !remote && !is_remote_tid(s.r_tid);
        s.r_clock = track ? hb.pair_set(s.r_tid, s.r_clock, tid, clk) : kNoSet;
        s.r_tid = kMultiReaders;
      }
    }
    seen_out = s;
  }
  if (uninit && remote) {  // the owner has not written it (yet): a missing cluster_sync, or a read of garbage
    report_access(ex, ViolationKind::cluster_lds, arr, off, n,
                  "read of " + std::to_string(n) + " B of the LDS of " + cluster_peer(owner) +
                      " that it has not written (a port::cluster_sync must separate its write from this read)");
    ex.fail_launch(b, "read of another workgroup's LDS before it was written");
    throw LaunchAbort{};
  }
  if (uninit && o.check_uninitialized) {
    report_access(ex, ViolationKind::lds_uninitialized_read, arr, off, n,
                  "read of " + std::to_string(n) + " B never written in this block");
  }
  if (hazard && o.check_hazards) {
    const std::string who = other == kMultiReaders ? "several other threads (not tracked one by one)"
                            : other == kAtomicWriter ? "an atomic of another thread"
                            : is_remote_tid(static_cast<std::uint16_t>(other))
                                ? "thread " + std::to_string(other & 0x3FF) + " (linear) of cluster rank " +
                                      std::to_string((other >> 10) & 7)
                                : "thread " + std::to_string(other) + " (linear)";
    report_access(ex, ViolationKind::lds_hazard, arr, off, n,
                  std::string(is_write ? "write" : "read") + " races with an access by " + who +
                      " since the last barrier (not ordered by it through a transaction barrier either)");
  }
  if (cross_hazard && !hazard) {  // always checked: the cluster protocol is the point of these accesses
    report_access(ex, ViolationKind::cluster_lds, arr, off, n,
                  std::string(is_write ? "write" : "read") + (remote ? " of the LDS of " + cluster_peer(owner) : std::string(" of the block's own LDS")) +
                      " races with an access from another workgroup of the cluster since the last port::cluster_sync");
    ex.fail_launch(b, "LDS access across the cluster without a port::cluster_sync between it and a conflicting one");
    throw LaunchAbort{};
  }
  if (((uninit && o.check_uninitialized) || (hazard && o.check_hazards)) && o.fail_on_violation) {
    ex.fail_launch(b, "LDS violation on array '" + std::string(arr.name) + "'");
    throw LaunchAbort{};
  }
}

}  // namespace dsv4::port::sim::detail
