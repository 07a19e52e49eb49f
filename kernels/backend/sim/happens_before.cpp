// sim backend: the vector clocks and reader sets of happens_before.hpp.
#include "kernels/backend/sim/happens_before.hpp"

#include <algorithm>
#include <utility>

namespace dsv4::port::sim::detail {

void HappensBefore::reset(int nthreads) {
  n_ = nthreads;
  precise = false;
  clock_.assign(static_cast<std::size_t>(nthreads), 1);
  seen_.assign(static_cast<std::size_t>(nthreads), {});
  version_.assign(static_cast<std::size_t>(nthreads), 0);
  new_epoch();
}

void HappensBefore::new_epoch() {
  if (sets_.empty()) return;
  sets_.clear();
  added_.clear();
  checked_.clear();
}

bool HappensBefore::ordered(int t, std::uint32_t u, std::uint32_t c) const {
  if (u == static_cast<std::uint32_t>(t)) return true;
  if (u >= static_cast<std::uint32_t>(n_)) return false;
  const std::vector<std::uint32_t>& s = seen_[static_cast<std::size_t>(t)];
  return !s.empty() && s[u] >= c;
}

void HappensBefore::release(int t, std::vector<std::uint32_t>& into) {
  const auto ti = static_cast<std::size_t>(t);
  if (into.size() < static_cast<std::size_t>(n_)) into.resize(static_cast<std::size_t>(n_), 0);
  const std::vector<std::uint32_t>& s = seen_[ti];
  for (std::size_t i = 0; i < s.size(); ++i) into[i] = std::max(into[i], s[i]);
  into[ti] = std::max(into[ti], clock_[ti]);
  ++clock_[ti];
}

void HappensBefore::acquire(int t, const std::vector<std::uint32_t>& from) {
  if (from.empty()) return;
  std::vector<std::uint32_t>& s = seen_[static_cast<std::size_t>(t)];
  if (s.empty()) s.assign(static_cast<std::size_t>(n_), 0);
  bool grew = false;
  for (std::size_t i = 0; i < from.size() && i < s.size(); ++i)
    if (from[i] > s[i]) {
      s[i] = from[i];
      grew = true;
    }
  if (grew) ++version_[static_cast<std::size_t>(t)];
}

std::uint32_t HappensBefore::intern(std::vector<Reader> readers) {
  sets_.push_back(std::move(readers));
  return static_cast<std::uint32_t>(sets_.size() - 1);
}

std::uint32_t HappensBefore::pair_set(std::uint32_t u, std::uint32_t cu, std::uint32_t t, std::uint32_t ct) {
  const Key single{kNoSet, u, cu};
  auto it = added_.find(single);
  const std::uint32_t one = it != added_.end() ? it->second : (added_[single] = intern({Reader{u, cu}}));
  return add_reader(one, t, ct);
}

std::uint32_t HappensBefore::add_reader(std::uint32_t set, std::uint32_t t, std::uint32_t ct) {
  const Key k{set, t, ct};
  if (auto it = added_.find(k); it != added_.end()) return it->second;
  std::vector<Reader> r = sets_[set];
  auto pos = std::lower_bound(r.begin(), r.end(), t, [](const Reader& a, std::uint32_t id) { return a.tid < id; });
  if (pos != r.end() && pos->tid == t)
    pos->clock = std::max(pos->clock, ct);
  else
    r.insert(pos, Reader{t, ct});
  const std::uint32_t id = intern(std::move(r));
  added_[k] = id;
  return id;
}

int HappensBefore::unordered_reader(std::uint32_t set, int t) {
  const Key k{set, static_cast<std::uint32_t>(t), version_[static_cast<std::size_t>(t)]};
  if (auto it = checked_.find(k); it != checked_.end()) return it->second;
  int found = -1;
  for (const Reader& r : sets_[set])
    if (!ordered(t, r.tid, r.clock)) {
      found = static_cast<int>(r.tid);
      break;
    }
  checked_[k] = found;
  return found;
}

}  // namespace dsv4::port::sim::detail
