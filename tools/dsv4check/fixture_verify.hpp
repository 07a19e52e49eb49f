// Verifying fixtures (dsv4check verify): recompute the op's reference from a fixture's inputs and attrs,
// judge every out.<output> tensor against it with the op's oracle policy, and judge the reference against
// any trusted expected.<output> golden. The comparison is one call, oracle::judge.
//
// Exit-code contract (verify_files): 0 every file passes; 1 some output mismatches (or a golden disagrees
// with the reference); 2 some file is invalid (container, schema, attrs, shapes the reference rejects, an
// out.* tensor whose shape/dtype differs from the op's output). 2 wins over 1.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "oracle/judge.hpp"
#include "reference/io/fixture.hpp"

namespace dsv4::cli {

struct VerifyOptions {
  std::map<std::string, OracleSpec> overrides;  // oracle policy overrides ("*" = every output)
  std::string heatmap_dir;                      // when set, a PNG error map per failing output goes here
  bool json = false;                            // print one JSON object per file instead of text
};

struct FixtureVerdict {
  oracle::JudgeResult outputs;                // out.* against the recomputed reference
  std::optional<oracle::JudgeResult> goldens;  // recomputed reference against expected.*
  bool pass() const { return outputs.pass && (!goldens || goldens->pass); }
};

// Installs the oracle's default policies into the registry's descriptors (once; keeps existing ones).
void ensure_default_policies();

// Judges a parsed fixture. Throws InputError (or a subclass) when it cannot be judged: no out.* tensor, the
// reference rejects the inputs, an out.* tensor is not an output the reference produces, shapes differ.
FixtureVerdict judge_fixture(const io::Fixture& f, const VerifyOptions& options = {});

// The text `verify` prints for a judged fixture named `name`: the PASS/FAIL line, then the oracle's reports
// (also the text of a verdict of the Python API, python/).
std::string verdict_text(const std::string& name, const io::Fixture& f, const FixtureVerdict& v);

// Verifies one file and prints its verdict (PASS/FAIL/INVALID line, then the oracle's report). Returns 0,
// 1 or 2 and never throws for a bad file.
int verify_file(const std::filesystem::path& path, const VerifyOptions& options, std::ostream& out);

// Verifies several files; returns the worst exit code (2 > 1 > 0) and prints a summary line.
int verify_files(const std::vector<std::string>& paths, const VerifyOptions& options, std::ostream& out);

}  // namespace dsv4::cli
