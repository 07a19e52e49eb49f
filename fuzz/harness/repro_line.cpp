// The one-line repro command; see repro_line.hpp.
#include "fuzz/harness/repro_line.hpp"

#include <fmt/format.h>

namespace dsv4::fuzz {

std::string shape_kv_list(const Json& shape) {
  std::string s;
  if (!shape.is_object()) return s;
  for (auto it = shape.begin(); it != shape.end(); ++it)
    s += (s.empty() ? "" : ",") + it.key() + "=" + (it->is_string() ? it->get<std::string>() : it->dump());
  return s;
}

std::string repro_line(const ReproLine& r) {
  Json shape = r.shape;
  if (!r.dtype.empty() && shape.is_object()) shape.erase("dtype");
  std::string s = fmt::format("dsv4check repro --op {}", r.op);
  if (const std::string sh = shape_kv_list(shape); !sh.empty()) s += " --shape " + sh;
  if (!r.dtype.empty()) s += " --dtype " + r.dtype;
  if (!r.attrs.empty()) s += " --attrs '" + r.attrs.dump() + "'";
  s += fmt::format(" --backend {}", r.backend);
  if (!r.arch.empty()) s += " --arch " + r.arch;
  if (r.variant != "default") s += " --variant " + r.variant;
  s += fmt::format(" --seed {}", r.seed);
  if (r.streams != 1) s += fmt::format(" --streams {}", r.streams);
  for (const auto& a : r.set_codes) s += " --set-code " + a;
  return s;
}

}  // namespace dsv4::fuzz
