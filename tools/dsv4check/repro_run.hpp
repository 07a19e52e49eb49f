// dsv4check repro: generate an op's inputs from a shape and a seed, run the kernel under test on a backend
// (see kernel_runner.hpp) and the reference, judge with the oracle, and print the verdict, the localisation and
// the kernel's plan; optionally save the case as a fixture (inputs, attrs, seed, outputs under test as out.*) and
// the error map of the first failing (else first) output as a PNG.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::cli {

struct ReproOptions {
  std::string op;
  Json shape = Json::object();  // from --shape (generator's shape JSON)
  std::string dtype;            // --dtype: put into shape["dtype"] when given
  Json attrs = Json::object();  // --attrs: merged over the generated case's attributes
  std::string backend = "reference";
  std::string arch;             // gfx942, gfx950, sm_90; empty = backend default
  std::string variant = "default";  // kernel variant (bug zoo)
  std::uint64_t seed = 1;
  int streams = 1;
  std::string save;             // fixture path
  std::string heatmap;          // PNG path
  std::string note;             // stored in the saved fixture
  // --set-code NAME:INDEX=CODE: raw codes forced into generated inputs (row-major linear INDEX; CODE decimal or
  // 0x hex), e.g. "x_sf:0=0xFF" for an e8m0 scale byte the generator would not produce.
  std::vector<std::string> set_codes;
};

// Applies one --set-code assignment to c (UsageError naming the piece when malformed or out of range).
void apply_set_code(OpCase& c, const std::string& assignment);

// Returns 0 when every output passes, 1 on a mismatch. Throws UsageError / InputError for bad options or
// a case the generator or reference rejects (exit 2).
int run_repro(const ReproOptions& o, std::ostream& out);

// The command line that reproduces o (printed, and stored as the saved fixture's "source").
std::string repro_command(const ReproOptions& o);

}  // namespace dsv4::cli
