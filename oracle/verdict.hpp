// Verdicts: what the oracle found for one output and for a whole op call. A verdict carries the
// counts, the worst elements (index, actual, expected, error, bound), the localisation and an
// error map (|err|/bound per element of the 2-D view) for the heatmap.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/policy.hpp"
#include "oracle/tile_map.hpp"

namespace dsv4::oracle {

// Why an element failed.
enum class FailKind : std::uint8_t { none, value, nan_mismatch, inf_mismatch, unwritten, index_set };
std::string fail_kind_name(FailKind k);

struct ElementReport {
  std::vector<std::int64_t> index;
  double actual = 0, expected = 0;
  double error = 0, bound = 0;  // |a-e| (or ulp distance, or tie distance) and the admitted bound
  FailKind kind = FailKind::value;
  std::string note;             // e.g. "actual index 17 not in expected set"
};

struct ErrorMap {
  std::int64_t rows = 0, cols = 0;
  std::vector<float> ratio;         // error/bound per element (0 = exact); +inf = bound 0 and error > 0
  std::vector<std::uint8_t> kind;   // FailKind per element
};

struct Verdict {
  std::string output;
  std::string policy;   // name as parsed
  Json params;          // effective parameters (incl. resolved defaults)
  std::string rationale;
  bool pass = false;
  std::int64_t checked = 0;           // elements compared
  std::int64_t failed = 0;            // elements that failed (any kind)
  std::map<std::string, std::int64_t> counts;  // per FailKind name, plus "nan_positions", "inf_positions", ...
  bool all_zero_flag = false;         // actual all zero while expected is not
  std::optional<double> metric;       // cosine: global calc_diff; others: max error/bound
  std::string metric_name;
  std::vector<ElementReport> worst;   // largest error/bound first
  std::vector<std::int64_t> failing;  // linear indices of failing elements
  Localisation where;
  ErrorMap map;
  std::vector<std::string> notes;     // warnings (e.g. rows whose own calc_diff exceeds the bound)
};

struct JudgeResult {
  std::string op;
  bool pass = false;
  std::vector<Verdict> outputs;  // in output order
};

}  // namespace dsv4::oracle
