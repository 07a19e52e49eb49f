// hipsim cross-launch race check: vector clocks per stream, the bytes each operation touched, the check after an
// operation ran; see stream_order.hpp.
// Invariant: operation X happens before Y iff Y's clock at issue holds X's stream at X's counter or later (or the
// reverse for Y before X); an operation is forgotten only once every operation issued so far has run and the host
// has waited for it (every later operation is then ordered after it).
#include "hipsim/runtime/stream_order.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <vector>

#include "hipsim/runtime/state.hpp"

namespace hipsim::order {

namespace {

using Clock = std::vector<std::uint64_t>;  // by StreamKey

void merge(Clock& dst, const Clock& src) {
  if (dst.size() < src.size()) dst.resize(src.size(), 0);
  for (std::size_t i = 0; i < src.size(); ++i) dst[i] = std::max(dst[i], src[i]);
}
std::uint64_t at(const Clock& c, StreamKey s) { return s < c.size() ? c[s] : 0; }

// Disjoint byte intervals [begin, end), touching ones merged.
using Intervals = std::map<std::uintptr_t, std::uintptr_t>;

void add(Intervals& m, std::uintptr_t b, std::uintptr_t e) {
  auto it = m.upper_bound(b);
  if (it != m.begin()) {
    auto p = std::prev(it);
    if (p->second >= e) return;
    if (p->second >= b) it = p;
  }
  if (it != m.end() && it->first < b) b = it->first;
  while (it != m.end() && it->first <= e) {
    e = std::max(e, it->second);
    it = m.erase(it);
  }
  m.emplace(b, e);
}

struct Overlap {
  std::uintptr_t lo = 0, hi = 0;
  bool found = false;
};
Overlap first_overlap(const Intervals& a, const Intervals& b) {
  auto i = a.begin(), j = b.begin();
  while (i != a.end() && j != b.end()) {
    const std::uintptr_t lo = std::max(i->first, j->first), hi = std::min(i->second, j->second);
    if (lo < hi) return {lo, hi, true};
    if (i->second <= j->second) ++i;
    else ++j;
  }
  return {};
}

constexpr int kTouches = 3;
bool conflicts(int a, int b) {
  const bool ra = a == int(Touch::read), rb = b == int(Touch::read);
  const bool aa = a == int(Touch::atomic), ab = b == int(Touch::atomic);
  return !(ra && rb) && !(aa && ab);
}
const char* verb(int t) {
  return t == int(Touch::read) ? "read them" : t == int(Touch::write) ? "wrote them" : "updated them atomically";
}

struct Op {
  std::string name, kernel;
  StreamKey stream = 0;
  std::uint64_t counter = 0, launch_id = 0;
  Clock clock;
  bool ran = false;
  std::map<const char*, Intervals> touched[kTouches];  // by source line ("file:line", or null: unknown)
};

struct StreamState {
  Clock clock;
  bool blocking = true;
};

struct State {
  std::vector<StreamState> streams{1};
  std::map<const void*, Clock> events;
  Clock host;
  std::map<std::uint64_t, Op> ops;
  std::unordered_map<std::uint64_t, std::uint64_t> by_launch;
  std::uint64_t next_op = 1;
  std::uint64_t cached_launch = 0;
  Op* cached = nullptr;
  std::size_t reported = 0;
};
State& st() {
  static State s;
  return s;
}

StreamState& stream(StreamKey s) {
  State& g = st();
  if (g.streams.size() <= s) g.streams.resize(std::size_t(s) + 1);
  return g.streams[s];
}

// What an operation on s is ordered after before its own work: what the host waited for, and the null stream's
// implicit synchronisation (null-stream work waits for the blocking streams, blocking-stream work for the null one).
Clock& ordered_clock(StreamKey s) {
  State& g = st();
  StreamState& ss = stream(s);
  merge(ss.clock, g.host);
  if (s == 0) {
    for (std::size_t k = 1; k < g.streams.size(); ++k)
      if (g.streams[k].blocking) merge(g.streams[0].clock, g.streams[k].clock);
  } else if (ss.blocking) {
    merge(ss.clock, g.streams[0].clock);
  }
  return stream(s).clock;
}

bool ordered(const Op& x, const Op& y) {
  return x.stream == y.stream || at(y.clock, x.stream) >= x.counter || at(x.clock, y.stream) >= y.counter;
}

std::string hex(std::uintptr_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%#zx", std::size_t(v));
  return b;
}
std::string where(const char* loc) { return loc ? std::string(" at ") + loc : std::string(" (line unknown)"); }

// The lowest conflicting bytes of x (earlier) and y, reported once per pair of operations.
void check_pair(const Op& x, const Op& y) {
  struct Best {
    Overlap o;
    int tx = 0, ty = 0;
    const char *lx = nullptr, *ly = nullptr;
  } best;
  constexpr int kOrder[kTouches] = {int(Touch::write), int(Touch::atomic), int(Touch::read)};  // ties: writes first
  for (int a : kOrder)
    for (int b : kOrder) {
      if (!conflicts(a, b)) continue;
      for (const auto& [lx, sx] : x.touched[a])
        for (const auto& [ly, sy] : y.touched[b]) {
          const Overlap o = first_overlap(sx, sy);
          if (o.found && (!best.o.found || o.lo < best.o.lo)) best = {o, a, b, lx, ly};
        }
    }
  if (!best.o.found) return;
  const Allocation* al = find_allocation(best.o.lo);
  std::string bytes;
  if (al) {
    bytes = "bytes [" + std::to_string(best.o.lo - al->base) + ", " + std::to_string(best.o.hi - al->base) +
            ") of " + al->describe() + " (" + std::to_string(al->bytes) + " B at " +
            hex(al->base) + ")";
  } else {
    bytes = "bytes [" + hex(best.o.lo) + ", " + hex(best.o.hi) + ")";
  }
  Finding f;
  f.kind = "stream_race";
  f.kernel = y.kernel;
  f.launch = y.launch_id;
  f.line = "stream_race between " + x.name + " on " + stream_name(x.stream) + " and " + y.name + " on " +
           stream_name(y.stream) + ": " + bytes + ": " + x.name + " " + verb(best.tx) + where(best.lx) + ", " +
           y.name + " " + verb(best.ty) + where(best.ly) +
           "; no event, synchronisation or stream order orders the two (first conflicting range shown)";
  add_finding(std::move(f));
}

void prune() {
  State& g = st();
  for (const auto& [h, op] : g.ops)
    if (!op.ran) return;  // an operation still to run must meet every one issued before it
  for (auto it = g.ops.begin(); it != g.ops.end();) {
    if (at(g.host, it->second.stream) >= it->second.counter) {
      g.by_launch.erase(it->second.launch_id);
      it = g.ops.erase(it);
    } else {
      ++it;
    }
  }
  g.cached = nullptr;
  g.cached_launch = 0;
}

}  // namespace

std::map<StreamKey, std::string>& names() {
  static std::map<StreamKey, std::string> m;
  return m;
}
std::string stream_name(StreamKey s) {
  if (auto it = names().find(s); it != names().end()) return it->second;
  return s == 0 ? "the null stream" : "stream " + std::to_string(s);
}
void name_stream(StreamKey s, std::string name) { names()[s] = std::move(name); }

void add_stream(StreamKey s, bool blocking) { stream(s).blocking = blocking; }

std::uint64_t issue(StreamKey s, std::string name, std::uint64_t launch_id, std::string kernel) {
  State& g = st();
  Clock& c = ordered_clock(s);
  if (c.size() <= s) c.resize(std::size_t(s) + 1, 0);
  const std::uint64_t h = g.next_op++;
  Op& op = g.ops[h];
  op.kernel = kernel.empty() ? name : std::move(kernel);
  op.name = std::move(name);
  op.stream = s;
  op.counter = ++c[s];
  op.clock = c;
  op.launch_id = launch_id;
  if (launch_id) g.by_launch[launch_id] = h;
  return h;
}

void touch(std::uint64_t h, std::uintptr_t p, std::size_t n, Touch t, const char* loc) {
  auto it = st().ops.find(h);
  if (it != st().ops.end() && n) add(it->second.touched[int(t)][loc], p, p + n);
}

void touch_launch(std::uint64_t launch_id, std::uintptr_t p, std::size_t n, Touch t, const char* loc) {
  State& g = st();
  if (g.cached_launch != launch_id) {
    auto it = g.by_launch.find(launch_id);
    g.cached = it == g.by_launch.end() ? nullptr : &g.ops[it->second];
    g.cached_launch = launch_id;
  }
  if (g.cached && n) add(g.cached->touched[int(t)][loc], p, p + n);
}

void executed(std::uint64_t h) {
  State& g = st();
  auto it = g.ops.find(h);
  if (it == g.ops.end()) return;
  Op& y = it->second;
  y.ran = true;
  for (const auto& [k, x] : g.ops)
    if (k != h && x.ran && !ordered(x, y)) k < h ? check_pair(x, y) : check_pair(y, x);
}

void record_event(const void* e, StreamKey s) { st().events[e] = ordered_clock(s); }

void wait_event(StreamKey s, const void* e) {
  Clock& c = ordered_clock(s);
  auto it = st().events.find(e);
  if (it != st().events.end()) merge(c, it->second);  // a never-recorded event orders nothing (HIP)
}

void forget_event(const void* e) { st().events.erase(e); }

void host_waits_stream(StreamKey s) {
  merge(st().host, stream(s).clock);
  prune();
}

void host_waits_event(const void* e) {
  auto it = st().events.find(e);
  if (it != st().events.end()) merge(st().host, it->second);
  prune();
}

void host_waits_all() {
  State& g = st();
  for (const StreamState& s : g.streams) merge(g.host, s.clock);
  prune();
}

}  // namespace hipsim::order
