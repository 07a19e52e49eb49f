// One fuzz case, end to end: draw inputs from the op's generator (seeded), compute the reference,
// run the implementation under test on poisoned outputs, judge with the op's oracle. A failing case
// is shrunk (smaller shapes, same seed, same failure class) and saved as a fixture whose "source" is
// the one-line repro command.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "fuzz/campaign/stage_times.hpp"
#include "fuzz/harness/under_test.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz {

struct CaseSpec {
  std::string op;
  std::uint64_t index = 0;  // position in the campaign's case stream of this op
  std::uint64_t seed = 0;   // the case's own seed (derived from the campaign seed, op and index)
  Json shape = Json::object();
};

enum class CaseStatus { pass, fail, error, discard };
const char* status_name(CaseStatus s);
std::optional<CaseStatus> parse_status(const std::string& s);

struct CaseResult {
  std::string op;
  std::uint64_t index = 0;
  std::uint64_t seed = 0;
  CaseStatus status = CaseStatus::discard;
  Json shape = Json::object();        // as run (after shrinking, for failures)
  Json original_shape = Json::object();
  std::string message;                // verdict summary / exception text / discard reason
  std::string repro;                  // one-line command
  std::string fixture;                // saved fixture path ("" if none)
  double seconds = 0;
  StageSeconds stages;                // busy seconds per stage, shrinking included
  SimFindings sim_findings;           // the sim executor's findings of the (shrunk) case's run
  Json to_json() const;
  static CaseResult from_json(const Json& j);
};

struct ExecOptions {
  UnderTestOptions under_test;
  std::string failure_dir;  // where fixtures of failures go; "" = do not save
  bool shrink = true;
  int max_shrink_steps = 24;
  int prefetch = 0;  // worker: cases whose inputs and references are prepared ahead on a thread pool (0 = none)
};

// The first half of a case, independent of the implementation under test: inputs drawn from the op's
// generator (seeded), validated, and the float64 reference. Safe to run on several threads at once
// (after prepare_registry()); the campaign worker prepares the next cases while a kernel runs.
struct PreparedCase {
  bool ok = false;       // false: a discard (generator or contract rejected the shape); see message
  std::string message;
  OpCase c;
  Outputs expected;
  double seconds = 0;
  StageSeconds stages;  // generate and reference
};
PreparedCase prepare_case(const CaseSpec& spec);

// The seed of case `index` of `op` in a campaign seeded `campaign_seed`.
std::uint64_t case_seed(std::uint64_t campaign_seed, const std::string& op, std::uint64_t index);

// The command that reproduces a case.
std::string repro_command(const CaseSpec& c, const UnderTestOptions& o);

CaseResult execute_case(const CaseSpec& spec, const ExecOptions& o);

// The second half: runs the implementation under test on a prepared case, judges it, and shrinks and
// saves a failure (shrinking prepares its smaller cases itself). execute_case = finish_case(prepare_case).
CaseResult finish_case(const CaseSpec& spec, PreparedCase prepared, const ExecOptions& o);

}  // namespace dsv4::fuzz
