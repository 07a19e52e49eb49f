// The bug zoo (issue 10): measures what the validation suite catches. Each entry is a faithful buggy
// variant of a kernel here (selected through RunOptions::variant / the plan's variant, never the
// default) or, where no kernel exists, a small "mutant" implementation of the relevant path with the
// bug (fuzz/zoo/mutant_*.cpp), run over a case stream and judged by the same detectors the suite uses:
// the oracle (localisation, NaN/inf placement, exact bits), the sim's LDS report, the stream-order race
// checker, plan properties, and a guard page behind the tensor's last byte.
// Invariant: every entry's probe with buggy=false is the correct implementation over the same cases,
// and it must raise no alarm (the no-false-alarm test).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz::zoo {

enum class Detector { oracle_localisation, lds_violation, race_report, nan_placement, plan_property, exact_bits, guard_page,
                      sim_report /* another hipsim report: wave/barrier divergence, global out of range, deadlock */,
                      probe_error /* the probe threw: never a detection, always an alarm in the clean run */ };
const char* detector_name(Detector d);  // "oracle-localisation", "lds-violation", ...

// What one case found: every detector that raised an alarm, with one diagnosis line each.
struct Finding {
  Detector detector;
  std::string diagnosis;
};
struct Probe {
  std::vector<Finding> findings;
  bool alarm() const { return !findings.empty(); }
  bool has(Detector d) const;
  std::string text() const;  // "detector: diagnosis | detector: diagnosis"
};

struct ZooCase {
  std::string label;   // e.g. "N=65 K=5248 M=16"
  Json params;         // entry-specific (generator shape, seed, bytes...)
};

struct ZooEntry {
  std::string id;              // "1", "6a", ...
  std::string title;
  std::string known_bugs_ref;  // "known-bugs #1"
  std::string enable;          // how the bug is switched on, e.g. "skinny_gemm variant readback_one_pass (sim)"
  Detector expected;
  std::vector<std::string> diagnosis_must_contain;  // substrings the detecting case's diagnosis must hold
  std::vector<ZooCase> cases;  // in order; detection is expected within them
  std::function<Probe(const ZooCase&, bool buggy)> probe;
};

struct ZooResult {
  std::string id, title, known_bugs_ref, enable;
  Detector expected = Detector::oracle_localisation;
  bool caught = false;                 // the expected detector fired on some case
  std::vector<Detector> detectors;     // detectors that fired on the detecting case (or the first alarm)
  int cases_until_detection = 0;       // 1-based index of the detecting case; 0 = not caught
  int cases_total = 0;
  double seconds = 0;                  // buggy run until detection
  std::string diagnosis;               // the detecting case's findings
  bool diagnosis_ok = false;           // diagnosis holds every diagnosis_must_contain substring
  // The correct implementation over every case of the stream.
  bool clean_checked = false;
  bool false_alarm = false;
  std::string false_alarm_text;
  double clean_seconds = 0;
  Json to_json() const;
};

// Every zoo entry, in id order (built once).
const std::vector<ZooEntry>& entries();
const ZooEntry* find_entry(const std::string& id);

// Runs the buggy implementation over the case stream until the expected detector fires, then (if
// check_clean) the correct one over every case. Exceptions from a probe become findings of no
// detector and are reported in diagnosis.
ZooResult run_entry(const ZooEntry& e, bool check_clean = true);
// Only the correct implementation over every case (the no-false-alarm check).
ZooResult run_clean(const ZooEntry& e);

}  // namespace dsv4::fuzz::zoo
