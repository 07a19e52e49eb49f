// Shape-field and memory checks before generation; see shape_check.hpp.
#include "reference/registry/shape_check.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>

#include <fmt/format.h>

namespace dsv4 {

namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// A factor: an integer literal or a shape field holding an integer.
std::optional<double> factor(const std::string& f, const Json& shape) {
  const std::string t = trim(f);
  if (t.empty()) return std::nullopt;
  if (std::all_of(t.begin(), t.end(), [](unsigned char ch) { return std::isdigit(ch); })) return std::stod(t);
  if (shape.is_object() && shape.contains(t) && shape.at(t).is_number_integer())
    return static_cast<double>(shape.at(t).get<std::int64_t>());
  return std::nullopt;
}

// The pieces of s between the separators (one piece when there is none).
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (std::size_t next; (next = s.find(sep, pos)) != std::string::npos; pos = next + 1) parts.push_back(s.substr(pos, next - pos));
  parts.push_back(s.substr(pos));
  return parts;
}

// A term: factors joined by '·' (UTF-8 middle dot) or '*'.
std::optional<double> term(std::string t, const Json& shape) {
  for (std::size_t p; (p = t.find("\xC2\xB7")) != std::string::npos;) t.replace(p, 2, "*");
  double v = 1;
  for (const std::string& f : split(t, '*')) {
    const auto x = factor(f, shape);
    if (!x) return std::nullopt;
    v *= *x;
  }
  return v;
}

// A dimension: terms joined by '+'.
std::optional<double> dimension(const std::string& d, const Json& shape) {
  double v = 0;
  for (const std::string& t : split(d, '+')) {
    const auto x = term(t, shape);
    if (!x) return std::nullopt;
    v += *x;
  }
  return v;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::mutex g_fields_mutex;
std::map<std::string, std::vector<std::string>>& fields_table() {
  static std::map<std::string, std::vector<std::string>> t;
  return t;
}

}  // namespace

void set_shape_fields(const std::string& op, std::vector<std::string> fields) {
  std::lock_guard<std::mutex> lock(g_fields_mutex);
  fields_table()[op] = std::move(fields);
}

std::vector<std::string> shape_fields(const std::string& op) {
  std::lock_guard<std::mutex> lock(g_fields_mutex);
  auto it = fields_table().find(op);
  return it == fields_table().end() ? std::vector<std::string>{} : it->second;
}

void check_shape_fields(const OpDescriptor& d, const Json& shape) {
  const std::vector<std::string> fields = shape_fields(d.name);
  if (fields.empty() || !shape.is_object()) return;
  for (auto it = shape.begin(); it != shape.end(); ++it) {
    const std::string& k = it.key();
    if (k == "values" || k.rfind("attr.", 0) == 0) continue;
    if (std::find(fields.begin(), fields.end(), k) != fields.end()) continue;
    throw InputError(fmt::format("{}: unknown shape field '{}'; the op's shape fields are {} (and values=..., "
                                 "attr.<attribute>=...)",
                                 d.name, k, join(fields)));
  }
}

std::optional<std::vector<std::int64_t>> eval_shape_rule(const std::string& rule, const Json& shape) {
  const std::size_t open = rule.find('['), close = rule.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  const std::string body = rule.substr(open + 1, close - open - 1);  // the first form of "[M], [N, M] or [1, M]"
  std::vector<std::int64_t> dims;
  for (const std::string& piece : split(body, ',')) {
    const auto v = dimension(piece, shape);
    if (!v || *v < 0 || *v > 9.2e18) return std::nullopt;
    dims.push_back(static_cast<std::int64_t>(*v));
  }
  return dims;
}

std::vector<PlannedTensor> planned_tensors(const OpDescriptor& d, const Json& shape) {
  std::vector<PlannedTensor> out;
  auto add = [&](const ArgSpec& a, const char* kind) {
    const auto dims = eval_shape_rule(a.shape, shape);
    if (a.optional || !dims || a.dtypes.empty()) return;  // an optional input may be absent
    std::size_t eb = std::numeric_limits<std::size_t>::max();
    for (DType t : a.dtypes) eb = std::min(eb, element_size(t));
    double n = 1;
    for (std::int64_t x : *dims) n *= static_cast<double>(x);
    out.push_back({fmt::format("{} '{}'", kind, a.name), a.shape, *dims, n * static_cast<double>(eb), eb});
  };
  for (const ArgSpec& a : d.inputs) add(a, "input");
  for (const ArgSpec& a : d.outputs) add(a, "output");
  return out;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) b /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

void check_shape_fits(const OpDescriptor& d, const Json& shape, double available) {
  const std::vector<PlannedTensor> ts = planned_tensors(d, shape);
  double total = 0;
  const PlannedTensor* largest = nullptr;
  for (const PlannedTensor& t : ts) {
    total += t.bytes;
    if (!largest || t.bytes > largest->bytes) largest = &t;
  }
  if (largest && largest->bytes > available) {
    std::string dims, others;
    for (std::int64_t x : largest->dims) dims += (dims.empty() ? "" : ", ") + std::to_string(x);
    for (const PlannedTensor& t : ts)
      if (&t != largest && t.bytes > available) others += fmt::format("{}{} {}", others.empty() ? "" : ", ", t.arg, human_bytes(t.bytes));
    throw InputError(fmt::format("{}: {} {} = [{}] needs {} ({} bytes per element), more than the {} of memory "
                                 "available{}; shrink the shape",
                                 d.name, largest->arg, largest->rule, dims, human_bytes(largest->bytes),
                                 largest->element_bytes, human_bytes(available),
                                 others.empty() ? "" : " (also too large: " + others + ")"));
  }
  if (total > available) {
    std::string parts;
    for (const PlannedTensor& t : ts) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", t.arg, human_bytes(t.bytes));
    throw InputError(fmt::format("{}: the shape's tensors need {} together ({}), more than the {} of memory available; "
                                 "shrink the shape",
                                 d.name, human_bytes(total), parts, human_bytes(available)));
  }
}

double available_memory_bytes() {
  double avail = 0;
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") {
      avail = kb * 1024;
      break;
    }
  if (avail <= 0) avail = static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) avail = std::min(avail, static_cast<double>(rl.rlim_cur));
  return avail;
}

void check_shape(const OpDescriptor& d, const Json& shape) {
  check_shape_fields(d, shape);
  check_shape_fits(d, shape, available_memory_bytes());
}

}  // namespace dsv4
