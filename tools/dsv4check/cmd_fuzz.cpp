// `dsv4check fuzz`: property-based campaigns (fuzz/campaign/), `fuzz merge` of sharded campaign
// folders, and the hidden `fuzz-worker` child that runs cases in isolation.
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "fuzz/campaign/campaign.hpp"
#include "fuzz/campaign/worker_process.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"
#include "tools/dsv4check/command.hpp"
#include "tools/dsv4check/shape_arg.hpp"

namespace {

using namespace dsv4;

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("fuzz: cannot find the dsv4check executable (/proc/self/exe)");
  buf[n] = 0;
  return buf;
}

std::pair<std::uint64_t, std::uint64_t> parse_shard(const std::string& s) {
  auto slash = s.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument(s);
    std::uint64_t i = std::stoull(s.substr(0, slash)), n = std::stoull(s.substr(slash + 1));
    if (n == 0 || i >= n) throw std::invalid_argument(s);
    return {i, n};
  } catch (const std::exception&) {
    throw cli::UsageError("--shard must be i/n with 0 <= i < n (e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT), got '" + s + "'");
  }
}

struct FuzzArgs {
  std::string op = "all", backend = "reference", arch, variant = "default", shard = "0/1", out, shape;
  std::uint64_t seed = 1, cases = 0;
  double minutes = 0, timeout_s = 120;
  int prefetch = -1;  // -1: all hardware threads
  bool quiet = false;
  std::vector<std::string> merge_dirs;
  std::string merge_out;
};

cli::Registrar fuzz_cmd{
    "fuzz", "Fuzz campaign: kernel vs reference under the oracle, failures shrunk and saved as fixtures",
    [](dsv4::cli::Args& app) -> cli::Action {
      auto a = std::make_shared<FuzzArgs>();
      app.add_option("--op", a->op, "Op name or 'all'")->capture_default_str();
      app.add_option("--backend", a->backend, "Implementation under test: 'reference' or this build's backend (sim/cuda/hip)")
          ->capture_default_str();
      app.add_option("--arch", a->arch, "Arch profile (gfx942, gfx950, sm_90)");
      app.add_option("--variant", a->variant, "Kernel variant (bug zoo); never a buggy one by default")->capture_default_str();
      app.add_option("--cases", a->cases, "Cases to run in this shard (in total, across resumes)");
      app.add_option("--minutes", a->minutes, "Wall-clock minutes for this run");
      app.add_option("--seed", a->seed, "Campaign seed")->capture_default_str();
      app.add_option("--shape", a->shape,
                     "Fuzz values only, at this one shape of the one --op: k=v,... (failures still shrink)");
      app.add_option("--shard", a->shard, "This shard, i/n (Slurm: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)")
          ->capture_default_str();
      app.add_option("--out", a->out, "Campaign folder (checkpoint, failures, fixtures, summary); resumes if it exists");
      app.add_option("--timeout", a->timeout_s, "Seconds after which a case counts as a hang")->capture_default_str();
      app.add_flag("--quiet", a->quiet, "No progress display");
      app.add_option("--prefetch", a->prefetch,
                     "Cases whose inputs and float64 references the worker prepares on a thread pool while a kernel "
                     "runs (0 = one case at a time; default: the number of hardware threads)");
      dsv4::cli::Args* merge = app.add_subcommand("merge", "Merge the folders of a sharded campaign into one summary");
      merge->add_option("--out", a->merge_out, "Folder for the merged summary")->required();
      merge->add_option("dirs", a->merge_dirs, "Campaign folders")->required()->check_existing_directory();
      app.require_subcommand(0, 1);
      return [a, merge]() -> int {
        if (merge->parsed()) {
          std::vector<fuzz::CampaignState> states;
          for (auto& d : a->merge_dirs) {
            if (!std::filesystem::exists(std::filesystem::path(d) / "checkpoint.json"))
              throw cli::UsageError(d + " is not a campaign folder (no checkpoint.json)");
            states.push_back(fuzz::load_state(d));
          }
          fuzz::CampaignState m = fuzz::merge_states(states);
          std::filesystem::create_directories(a->merge_out);
          fuzz::write_summary(m, a->merge_out);
          std::cout << fmt::format("merged {} campaign folders: {} failures; {}/summary.md\n", states.size(),
                                   m.failures.size(), a->merge_out);
          return m.failures.empty() ? 0 : 1;
        }
        if (a->out.empty()) throw cli::UsageError("--out DIR is required");
        if (a->cases == 0 && a->minutes <= 0) throw cli::UsageError("give --cases N or --minutes M");
        fuzz::CampaignOptions o;
        if (a->op == "all") {
          for (auto* d : Registry::instance().all())
            if (d->generate && d->reference) o.ops.push_back(d->name);
          if (o.ops.empty()) throw cli::UsageError("no op has a generator yet");
        } else {
          const OpDescriptor& d = Registry::instance().get(a->op);
          if (!d.generate) throw cli::UsageError("op '" + a->op + "' has no input generator");
          o.ops.push_back(d.name);
          if (!a->shape.empty()) {
            o.fixed_shape = cli::parse_key_values(a->shape, "--shape");
            check_shape(d, o.fixed_shape);  // unknown fields and tensors too large, before any case runs
          }
        }
        if (!a->shape.empty() && a->op == "all") throw cli::UsageError("--shape needs one --op, not 'all'");
        auto [i, n] = parse_shard(a->shard);
        o.shard = i;
        o.shards = n;
        o.seed = a->seed;
        o.max_cases = a->cases;
        o.max_minutes = a->minutes;
        o.case_timeout_s = a->timeout_s;
        o.out_dir = a->out;
        o.progress = !a->quiet;
        o.under_test.backend = a->backend;
        o.under_test.arch = a->arch;
        o.under_test.variant = a->variant;
        o.worker_argv = {self_exe(), "fuzz-worker", "--backend", a->backend, "--variant", a->variant,
                         "--failure-dir", (std::filesystem::path(a->out) / "failures").string()};
        if (!a->arch.empty()) {
          o.worker_argv.push_back("--arch");
          o.worker_argv.push_back(a->arch);
        }
        o.prefetch = a->prefetch >= 0 ? a->prefetch : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        o.worker_argv.push_back("--prefetch");
        o.worker_argv.push_back(std::to_string(o.prefetch));
        return fuzz::run_campaign(o);
      };
    }};

cli::Registrar worker_cmd{
    "fuzz-worker", "(internal) runs fuzz cases read from stdin; started by `dsv4check fuzz`",
    [](dsv4::cli::Args& app) -> cli::Action {
      app.group("");  // hidden from --help
      auto o = std::make_shared<fuzz::ExecOptions>();
      app.add_option("--backend", o->under_test.backend);
      app.add_option("--arch", o->under_test.arch);
      app.add_option("--variant", o->under_test.variant);
      app.add_option("--failure-dir", o->failure_dir);
      app.add_option("--prefetch", o->prefetch);
      return [o]() -> int { return fuzz::worker_main(*o); };
    }};

}  // namespace
