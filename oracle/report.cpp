// Text and JSON reports of verdicts. See report.hpp.
#include "oracle/report.hpp"

#include <cmath>

#include <fmt/format.h>

namespace dsv4::oracle {

namespace {

std::string idx_str(const std::vector<std::int64_t>& idx) {
  std::string s = "[";
  for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

Json num(double x) {  // JSON has no NaN/inf: spell them as strings
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

}  // namespace

std::string summary_line(const Verdict& v) {
  std::string s = fmt::format("{} {}: {} ({})", v.pass ? "PASS" : "FAIL", v.output.empty() ? "output" : v.output,
                              v.policy, v.params.dump());
  if (v.failed) s += fmt::format(": {}/{} elements fail", v.failed, v.checked);
  else s += fmt::format(": {} elements checked", v.checked);
  if (v.metric) s += fmt::format(", {} = {:.4g}", v.metric_name, *v.metric);
  if (v.all_zero_flag) s += ", ALL-ZERO OUTPUT";
  if (v.failed) s += "; " + v.where.summary;
  return s;
}

std::string text_report(const Verdict& v) {
  std::string s = summary_line(v) + "\n";
  if (!v.rationale.empty()) s += "  policy: " + v.rationale + "\n";
  std::string counts;
  for (auto& [k, n] : v.counts) if (n) counts += fmt::format("{}{}={}", counts.empty() ? "" : ", ", k, n);
  if (!counts.empty()) s += "  counts: " + counts + "\n";
  if (v.failed && !v.where.row_tiles.empty() && v.where.tiles.size() > 1) {
    s += "  failures per tile (row tile, col tile): ";
    for (std::size_t i = 0; i < std::min<std::size_t>(v.where.tiles.size(), 8); ++i)
      s += fmt::format("{}({}, {})={}", i ? ", " : "", v.where.tiles[i].row_tile, v.where.tiles[i].col_tile,
                       v.where.tiles[i].failures);
    s += "\n";
  }
  if (!v.worst.empty()) {
    s += v.failed ? "  worst elements:\n" : "  closest elements:\n";
    for (auto& w : v.worst)
      s += fmt::format("    {:<16} actual {:<14.8g} expected {:<14.8g} error {:<11.4g} bound {:<11.4g} {}{}\n",
                       idx_str(w.index), w.actual, w.expected, w.error, w.bound, fail_kind_name(w.kind),
                       w.note.empty() ? "" : " (" + w.note + ")");
  }
  for (auto& n : v.notes) s += "  note: " + n + "\n";
  return s;
}

std::string text_report(const JudgeResult& r) {
  std::int64_t nf = 0;
  for (auto& v : r.outputs) nf += !v.pass;
  std::string s = fmt::format("{} {}: {}/{} outputs pass\n", r.pass ? "PASS" : "FAIL", r.op,
                              r.outputs.size() - static_cast<std::size_t>(nf), r.outputs.size());
  for (auto& v : r.outputs) s += text_report(v);
  return s;
}

Json to_json(const Verdict& v) {
  Json j;
  j["output"] = v.output;
  j["pass"] = v.pass;
  j["policy"] = v.policy;
  j["params"] = v.params;
  j["rationale"] = v.rationale;
  j["checked"] = v.checked;
  j["failed"] = v.failed;
  j["counts"] = v.counts;
  j["all_zero_flag"] = v.all_zero_flag;
  if (v.metric) j["metric"] = {{"name", v.metric_name}, {"value", num(*v.metric)}};
  Json worst = Json::array();
  for (auto& w : v.worst)
    worst.push_back({{"index", w.index}, {"actual", num(w.actual)}, {"expected", num(w.expected)},
                     {"error", num(w.error)}, {"bound", num(w.bound)}, {"kind", fail_kind_name(w.kind)}, {"note", w.note}});
  j["worst"] = worst;
  Json where;
  where["summary"] = v.where.summary;
  where["rows"] = compact_ranges(v.where.rows, 64);
  where["cols"] = compact_ranges(v.where.cols, 64);
  where["row_tiles"] = v.where.row_tiles;
  where["col_tiles"] = v.where.col_tiles;
  Json tiles = Json::array();
  for (auto& t : v.where.tiles) tiles.push_back({{"row_tile", t.row_tile}, {"col_tile", t.col_tile}, {"failures", t.failures}});
  where["tiles"] = tiles;
  j["where"] = where;
  j["notes"] = v.notes;
  return j;
}

Json to_json(const JudgeResult& r) {
  Json j;
  j["op"] = r.op;
  j["pass"] = r.pass;
  j["outputs"] = Json::array();
  for (auto& v : r.outputs) j["outputs"].push_back(to_json(v));
  return j;
}

}  // namespace dsv4::oracle
