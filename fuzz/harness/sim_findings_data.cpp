// Sim findings as data (JSON round trip and text); needs no sim, so the Python core links it without the kernels.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "fuzz/harness/sim_findings.hpp"

namespace dsv4::fuzz {

Json SimFindings::to_json() const {
  Json items_json = Json::array();
  for (const SimFinding& f : items) items_json.push_back(Json{{"kind", f.kind}, {"text", f.text}});
  return Json{{"total", total}, {"items", items_json}};
}

SimFindings SimFindings::from_json(const Json& j) {
  SimFindings s;
  if (!j.is_object()) return s;
  s.total = j.value("total", std::size_t{0});
  if (j.contains("items") && j["items"].is_array())
    for (const Json& i : j["items"]) s.items.push_back({i.value("kind", std::string()), i.value("text", std::string())});
  s.total = std::max(s.total, s.items.size());
  return s;
}

std::string SimFindings::text() const {
  if (empty()) return "sim findings: none\n";
  std::map<std::string, std::size_t> by_kind;
  for (const SimFinding& f : items) ++by_kind[f.kind];
  std::string kinds;
  for (const auto& [k, n] : by_kind) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", k, n);
  std::string s = fmt::format("sim findings: {} ({}{})\n", total, kinds, total > items.size() ? ", first stored" : "");
  for (const SimFinding& f : items) s += "  " + f.text + "\n";
  if (total > items.size()) s += fmt::format("  ... and {} more\n", total - items.size());
  return s;
}

std::string SimFindings::one_line() const {
  std::string t = text();
  const std::size_t head = t.find('\n');
  std::string out = t.substr(0, head);
  std::string sep = ": ";
  for (const SimFinding& f : items) out += sep + f.text, sep = " | ";
  if (total > items.size()) out += fmt::format(" | ... and {} more", total - items.size());
  return out;
}

}  // namespace dsv4::fuzz
