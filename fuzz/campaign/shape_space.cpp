// Shape spaces; see shape_space.hpp.
#include "fuzz/campaign/shape_space.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "fuzz/harness/repro_line.hpp"

namespace dsv4::fuzz {

namespace {
std::map<std::string, ShapeSpace>& spaces() {
  static std::map<std::string, ShapeSpace> s;
  return s;
}

std::int64_t mutate_int(std::int64_t v, std::mt19937_64& rng) {
  const std::int64_t aligns[] = {16, 64, 128};
  switch (std::uniform_int_distribution<int>(0, 6)(rng)) {
    case 0: return v - 1;
    case 1: return v + 1;
    case 2: return v * 2;
    case 3: return v / 2;
    case 4: {
      std::int64_t a = aligns[std::uniform_int_distribution<int>(0, 2)(rng)];
      std::int64_t m = std::max<std::int64_t>(a, (v + a - 1) / a * a);
      return m + std::uniform_int_distribution<int>(-1, 1)(rng);
    }
    case 5: return std::uniform_int_distribution<std::int64_t>(1, std::max<std::int64_t>(2, 2 * v))(rng);
    default: return v;
  }
}
}  // namespace

void register_shape_space(const std::string& op, ShapeSpace space) { spaces()[op] = std::move(space); }

Json draw_shape(const OpDescriptor& d, std::mt19937_64& rng, const std::vector<Json>& extra_bases) {
  if (auto it = spaces().find(d.name); it != spaces().end()) return it->second(rng);
  std::vector<Json> bases = d.default_shapes;
  bases.insert(bases.end(), extra_bases.begin(), extra_bases.end());
  if (bases.empty()) return Json::object();
  Json s = bases[std::uniform_int_distribution<std::size_t>(0, bases.size() - 1)(rng)];
  if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.25) return s;  // the base itself
  for (auto it = s.begin(); it != s.end(); ++it) {
    if (!it->is_number_integer() || std::uniform_real_distribution<double>(0, 1)(rng) < 0.5) continue;
    const std::int64_t v = it->get<std::int64_t>();
    *it = std::clamp<std::int64_t>(mutate_int(v, rng), v > 0 ? 1 : 0, std::max<std::int64_t>(4 * v, 4));
  }
  return s;
}

std::vector<Json> shrink_candidates(const Json& shape) {
  std::vector<Json> r;
  if (!shape.is_object()) return r;
  for (auto it = shape.begin(); it != shape.end(); ++it) {
    if (!it->is_number_integer()) continue;
    const std::int64_t v = it->get<std::int64_t>();
    for (std::int64_t nv : {v / 2, v - 1}) {
      if (nv < 1 || nv >= v) continue;
      Json s = shape;
      s[it.key()] = nv;
      r.push_back(std::move(s));
    }
  }
  return r;
}

std::string shape_arg(const Json& shape) { return shape_kv_list(shape); }

}  // namespace dsv4::fuzz
