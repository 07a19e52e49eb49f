// Zoo entries of the plain-HIP kernels of tests/hipsim (issue 30): each planted -D bug of gemv_dpp.hip,
// skinny_splitk.hip and splitk_rc.hip is its own sim executable, built in the test tree; a probe runs the buggy executable (or the
// correct one, for the clean run) with the case's arguments and turns what it prints into findings: the sim's
// lds_* reports -> lds-violation; its other reports (wave_divergence, barrier_divergence, global_out_of_range,
// deadlock, kernel_exception) -> sim-report; the harness's comparison with skinny_gemm's float64 reference within
// the op's error bound ("mismatch ...", "FAIL: n of m outputs") -> oracle-localisation.
// Rules: the executables' folder is the environment variable DSV4_HIPSIM_ZOO_DIR when set (a copied or installed
// set of them, outside the build tree), else the build's own (the macro DSV4_HIPSIM_ZOO_DIR, set by
// tests/hipsim/CMakeLists.txt, which also makes dsv4_fuzz depend on them); without the sim toolchain the entries are
// absent. A missing executable, an
// exit status other than 0/1/3 or a run that prints neither PASS nor a finding is a probe error, never a detection.
// The sim's schedule variables are cleared for the child, so each case runs the serial schedule.
#include "fuzz/zoo/zoo_detail.hpp"

#if defined(DSV4_HIPSIM_ZOO_DIR)
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace dsv4::fuzz::zoo::detail {

namespace {

struct HipsimBug {
  std::string id, title, buggy_exe, clean_exe;
  Detector expected;
  std::vector<std::string> diagnosis_must_contain;
  std::vector<std::string> cases;  // argument lists
};

Probe run_hipsim(const std::string& exe, const std::string& args) {
  const char* env = std::getenv("DSV4_HIPSIM_ZOO_DIR");
  const bool from_env = env && *env;
  const std::filesystem::path path = std::filesystem::path(from_env ? env : DSV4_HIPSIM_ZOO_DIR) / exe;
  if (!std::filesystem::exists(path))
    throw std::runtime_error(
        from_env ? fmt::format("{} does not exist: DSV4_HIPSIM_ZOO_DIR={} must name the folder holding the tests/hipsim "
                               "executables (build/default/tests/hipsim in a build tree)",
                               path.string(), env)
                 : fmt::format("{} is not built (cmake --build <build> --target {}; or set DSV4_HIPSIM_ZOO_DIR to a "
                               "folder holding the tests/hipsim executables)",
                               path.string(), exe));
  const std::string cmd = fmt::format(
      "env -u DSV4_SIM_SEED -u DSV4_SIM_ERROR_EXITCODE -u DSV4_SIM_REPORT -u DSV4_SIM_TIMEOUT '{}' {} 2>&1",
      path.string(), args);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  Probe probe;
  std::string mismatch;
  bool pass = false, lds = false, sim = false;
  for (std::size_t pos = 0; pos < out.size();) {
    std::size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(pos, end - pos);
    pos = end + 1;
    auto starts = [&](const char* s) { return line.rfind(s, 0) == 0; };
    if (starts("lds_")) {
      if (!lds) probe.findings.push_back({Detector::lds_violation, line});
      lds = true;
    } else if (starts("wave_divergence") || starts("barrier_divergence") || starts("global_out_of_range") ||
               starts("deadlock") || starts("kernel_exception") || starts("stream_race") || starts("timeout")) {
      if (!sim) probe.findings.push_back({Detector::sim_report, line});
      sim = true;
    } else if (starts("mismatch ") && mismatch.empty()) {
      mismatch = line;
    } else if (starts("FAIL")) {
      probe.findings.push_back({Detector::oracle_localisation, (mismatch.empty() ? "" : mismatch + "; ") + line});
    } else if (starts("PASS")) {
      pass = true;
    }
  }
  if ((rc != 0 && rc != 1 && rc != 3) || (!pass && probe.findings.empty()))
    throw std::runtime_error(fmt::format("{} {}: exit status {}, output: {}", exe, args, rc, out.substr(0, 400)));
  return probe;
}

ZooEntry hipsim_entry(const HipsimBug& b) {
  ZooEntry e;
  e.id = b.id;
  e.title = b.title;
  e.known_bugs_ref = "issue 30 (planted)";
  e.enable = fmt::format("tests/hipsim sim executable {} (clean: {})", b.buggy_exe, b.clean_exe);
  e.expected = b.expected;
  e.diagnosis_must_contain = b.diagnosis_must_contain;
  for (const auto& a : b.cases) e.cases.push_back({a, {{"args", a}}});
  e.probe = [buggy_exe = b.buggy_exe, clean_exe = b.clean_exe](const ZooCase& c, bool buggy) {
    return run_hipsim(buggy ? buggy_exe : clean_exe, c.params["args"].get<std::string>());
  };
  return e;
}

}  // namespace

std::vector<ZooEntry> hipsim_entries() {
  const std::string gemv = "hipsim_gemv_dpp_correct", skinny = "hipsim_skinny_correct", rc = "hipsim_splitk_rc";
  // Arguments: gemv_dpp K M SEED, skinny_splitk N K M SEED, splitk_rc run|streams DTYPE [BIAS] N K M SEED. Earlier
  // cases are shapes the bug does not reach.
  const std::vector<HipsimBug> bugs = {
      {"H1", "GEMV DPP row_bcast:15 under a wrong row mask (lane 63 misses row 2's sum)",
       "hipsim_gemv_dpp_bug_wrong_row_mask", gemv, Detector::oracle_localisation, {"mismatch y[", "outside the error bound"},
       {"512 8 901", "2056 21 902"}},
      {"H2", "GEMV DPP wave reduction inside if (lane < 32)", "hipsim_gemv_dpp_bug_divergent_reduction", gemv,
       Detector::sim_report, {"wave_divergence in kernel 'gemv_dpp'", "32 of 64 lanes"}, {"512 8 903"}},
      {"H3", "GEMV x staging array one element short of kMaxK", "hipsim_gemv_dpp_bug_x_overflow", gemv,
       Detector::lds_violation, {"lds_out_of_range", "::s_x' offset 16368 size 16"}, {"4096 8 904", "8192 8 905"}},
      {"H4", "skinny split-K partials staged at a shard-sized stride (LDS overflow)", "hipsim_skinny_bug_lds_overflow",
       skinny, Detector::lds_violation, {"lds_out_of_range", "::smem'", "outside the block's LDS"}, {"4 1024 32 906"}},
      {"H5", "skinny epilogue reads bias one past its __shared__ array", "hipsim_skinny_bug_neighbour", skinny,
       Detector::lds_violation, {"lds_out_of_range", "::s_bias' offset 64"}, {"4 512 16 907"}},
      {"H6", "skinny readback without the __syncthreads after the partial writes", "hipsim_skinny_bug_missing_sync",
       skinny, Detector::lds_violation, {"lds_hazard", "::smem'"}, {"4 1024 16 908"}},
      {"H7", "skinny waves without K work return before the readback barrier", "hipsim_skinny_bug_early_exit", skinny,
       Detector::sim_report, {"barrier_divergence in kernel 'skinny_splitk'"}, {"4 1024 16 909", "4 256 16 910"}},
      {"H8", "skinny bias guard admits row M (global read past the end)", "hipsim_skinny_bug_global_oob", skinny,
       Detector::sim_report, {"global_out_of_range", "past its end"}, {"4 512 32 911", "4 512 45 912"}},
      {"H9", "skinny staging leaves the rows of a past N unwritten", "hipsim_skinny_bug_uninit", skinny,
       Detector::lds_violation, {"lds_uninitialized_read", "::smem'"}, {"4 512 16 913", "2 512 16 914"}},
      {"H10", "wvSplitKrc one-pass readback stages every K-shard at once (known-bugs #1: global_load_lds past LDS)",
       "hipsim_splitk_rc_one_pass", rc, Detector::lds_violation, {"lds_out_of_range", "of a 163840 B array (outside the block's LDS: dropped)"},
       {"run bf16 none 13 2880 128 915", "run bf16 m 65 5248 128 916"}},
      {"H11", "wvSplitKrc static workspace shared by two streams (known-bugs #3)", "hipsim_splitk_rc_static_ws", rc,
       Detector::sim_report, {"stream_race", "g_splitk_ws"}, {"streams bf16 29 2880 128 917"}},
  };
  std::vector<ZooEntry> v;
  for (const auto& b : bugs) v.push_back(hipsim_entry(b));
  return v;
}

}  // namespace dsv4::fuzz::zoo::detail

#else
namespace dsv4::fuzz::zoo::detail {
std::vector<ZooEntry> hipsim_entries() { return {}; }
}  // namespace dsv4::fuzz::zoo::detail
#endif
