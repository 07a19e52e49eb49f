// `dsv4check fuzz`: a campaign over one op or all, sharded across machines, checkpointed in its
// output folder so a killed campaign resumes without losing a found failure or repeating work.
//
// Case stream: for each op, global case indices 0, 1, 2, ...; shard i/n takes the indices with
// index % n == i. A case's seed is case_seed(campaign seed, op, index), so any case is reproducible
// alone. Ops are visited round-robin.
//
// Durability order: a failure is appended to DIR/failures.jsonl and fsync'ed BEFORE the checkpoint
// (DIR/checkpoint.json, written to a temp file and renamed) moves past its index. A crash between
// the two repeats at most the cases in flight, and never loses one.
//
// Pipelining: with prefetch P, up to P+1 cases are in flight in the worker (see worker_process.hpp);
// results are consumed strictly in submission order, so tallies, checkpoints, failures and shards are
// the same as without pipelining.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fuzz/campaign/case_exec.hpp"

namespace dsv4::fuzz {

struct CampaignOptions {
  std::vector<std::string> ops;  // resolved op names
  UnderTestOptions under_test;
  std::uint64_t seed = 1;
  Json fixed_shape;  // non-null: every case of the (single) op runs at this shape; only the values vary
  std::uint64_t shard = 0, shards = 1;
  std::uint64_t max_cases = 0;   // this shard's cases (0 = no limit)
  double max_minutes = 0;        // wall-clock limit (0 = no limit); one of the two is required
  double case_timeout_s = 120;   // a case past this is a hang
  std::string out_dir;
  std::vector<std::string> worker_argv;  // how to start a worker child (see worker_process.hpp)
  // Cases submitted to the worker ahead of the one whose kernel runs (its pool prepares their inputs
  // and references meanwhile); 0 = one case at a time. The worker must be started with --prefetch too.
  int prefetch = 0;
  bool progress = true;
};

struct OpTally {
  std::uint64_t next_index = 0;  // next global index to consider
  std::uint64_t pass = 0, fail = 0, error = 0, discard = 0;
  std::map<std::string, std::map<std::string, std::uint64_t>> coverage;  // shape key -> bucket -> count
  StageSeconds stages;  // busy seconds per stage over the op's cases (stage_times.hpp)
  std::uint64_t cases() const { return pass + fail + error + discard; }
};

struct CampaignState {
  std::uint64_t seed = 0, shard = 0, shards = 1;
  std::string backend, arch, variant;
  double elapsed_s = 0;
  std::map<std::string, OpTally> ops;
  std::vector<CaseResult> failures;  // fail and error results (from failures.jsonl)
};

// Runs (or resumes) a campaign. Returns 0 when no failure was found, 1 otherwise.
int run_campaign(const CampaignOptions& o);

// Reads DIR's checkpoint and failures (for resume and merge).
CampaignState load_state(const std::string& dir);

// Writes DIR/summary.json and DIR/summary.md from a state.
void write_summary(const CampaignState& s, const std::string& dir);

// `dsv4check fuzz merge`: sums the tallies and concatenates the failures of several campaign folders.
CampaignState merge_states(const std::vector<CampaignState>& states);

// "skinny_gemm 3.10 cases/s (gen 12% ref 70% kernel 15% judge 3%; bound: reference)": one op's rate and shares.
std::string op_rate_line(const std::string& op, const OpTally& t);

// Coverage bucket of a shape value: "=v" for small integers (<= 16), "[2^k, 2^(k+1))" above, the
// string itself for strings.
std::string coverage_bucket(const Json& v);

}  // namespace dsv4::fuzz
