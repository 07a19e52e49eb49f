// `dsv4check kernels --arch gfx942|gfx90a|gfx950 [--objects DIR]`: one row per kernel of the AMD code objects that
// cmake/AmdCompileCheck.cmake built (LDS static/dynamic/capacity, VGPRs, SGPRs, scratch, spills, occupancy), each
// checked against the arch budget and its host plan sweeps (amd_kernel_plans.cpp). Exit 1 on any violation.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/dsv4check/amd_kernel_plans.hpp"
#include "tools/dsv4check/amd_notes.hpp"
#include "tools/dsv4check/command.hpp"

namespace {

namespace fs = std::filesystem;
using dsv4::cli::UsageError;

struct Options {
  std::string arch;
  std::string objects;
  std::vector<std::string> dynamic_lds, static_lds, workgroup, allow_scratch;
  bool no_plans = false;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw UsageError("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "NAME=VALUE" overrides: NAME is a substring of the kernel's demangled or mangled name.
struct Override {
  std::string name;
  std::size_t value;
};
std::vector<Override> parse_overrides(const std::vector<std::string>& items, const char* option) {
  std::vector<Override> out;
  for (const auto& s : items) {
    auto eq = s.rfind('=');
    std::size_t v = 0;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < s.size();
    if (ok) {
      try {
        std::size_t used = 0;
        v = std::stoull(s.substr(eq + 1), &used);
        ok = used == s.size() - eq - 1;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) throw UsageError(std::string(option) + " takes NAME=BYTES with BYTES a number (got '" + s + "')");
    out.push_back({s.substr(0, eq), v});
  }
  return out;
}
bool matches(const dsv4::amd::KernelResources& k, const std::string& name) {
  return k.demangled.find(name) != std::string::npos || k.symbol.find(name) != std::string::npos;
}

// "void ns::(anonymous namespace)::kern<true>(ns::P)" -> "ns::kern<true>".
std::string short_name(std::string s) {
  if (s.starts_with("void ")) s = s.substr(5);
  for (std::string anon = "(anonymous namespace)::"; s.find(anon) != std::string::npos;)
    s.erase(s.find(anon), anon.size());
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0) return s.substr(0, i);
  }
  return s;
}

int run(const Options& o) {
  using namespace dsv4::amd;
  const ArchBudget* arch = arch_budget(o.arch);
  if (!arch) throw UsageError("--arch must be one of " + known_arch_names() + " (got '" + o.arch + "')");
  fs::path dir = o.objects;
  if (dir.empty()) {
#ifdef DSV4_AMD_OBJECTS_DIR
    dir = fs::path(DSV4_AMD_OBJECTS_DIR) / o.arch;
#else
    throw UsageError("this build has no AMD code objects (DSV4_AMD_COMPILE_CHECK is OFF: run "
                     "tools/scripts/deps.sh --with-amd and re-configure); pass --objects DIR");
#endif
  }
  if (!fs::is_directory(dir))
    throw UsageError("no code-object folder " + dir.string() + " (is " + o.arch +
                     " built? cmake --build <build> --target dsv4_amd_objects)");

  // The objects: every *.notes.txt, and every MANIFEST.txt entry must have one.
  std::set<std::string> stems;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.ends_with(".notes.txt")) stems.insert(n.substr(0, n.size() - 10));
  }
  std::vector<std::string> problems;
  if (fs::exists(dir / "MANIFEST.txt")) {
    std::istringstream in(read_file(dir / "MANIFEST.txt"));
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && !stems.count(line))
        problems.push_back(line + ": listed in MANIFEST.txt but not built (its AMD compile failed or was not run)");
  }

  const auto dyn = parse_overrides(o.dynamic_lds, "--dynamic-lds");
  const auto stat = parse_overrides(o.static_lds, "--static-lds");
  const auto wg = parse_overrides(o.workgroup, "--workgroup");

  std::vector<KernelCheck> checks;
  for (const auto& stem : stems) {
    for (const KernelResources& k : parse_notes(read_file(dir / (stem + ".notes.txt")), stem)) {
      KernelExpectation e;
      std::optional<KernelExpectation> plan;
      if (!o.no_plans) plan = plan_expectation(k.demangled, o.arch);
      if (plan) {
        e = *plan;
      } else {
        e.source = "no plan";
        if (!o.no_plans)
          problems.push_back(short_name(k.demangled) + ": no plan sweep names device kernel '" +
                             device_kernel_name(k.demangled) + "' (its kernel entry's plan_sweeps, "
                             "kernels/plan_sweep.hpp); its LDS cannot be checked against a plan");
      }
      for (const auto& v : dyn)
        if (matches(k, v.name)) e.dynamic_lds = v.value, e.source = "options";
      for (const auto& v : stat)
        if (matches(k, v.name)) e.static_lds = v.value, e.source = "options";
      for (const auto& v : wg)
        if (matches(k, v.name)) e.workgroup_size = static_cast<int>(v.value);
      for (const auto& n : o.allow_scratch)
        if (matches(k, n)) e.scratch_allowed = true;
      checks.push_back(check_kernel(k, *arch, e));
    }
  }

  std::printf("AMD kernel budgets, %s (LDS capacity %zu KiB per workgroup, %zu KiB per CU), objects in %s\n",
              o.arch.c_str(), arch->lds_per_workgroup / 1024, arch->lds_per_cu / 1024, dir.string().c_str());
  int name_w = 6, obj_w = 6;
  for (const auto& c : checks) {
    name_w = std::max(name_w, static_cast<int>(short_name(c.kernel.demangled).size()));
    obj_w = std::max(obj_w, static_cast<int>(c.kernel.object.size()));
  }
  std::printf("%-*s %-*s %8s %8s %8s %5s %5s %5s %8s %8s %5s %-10s %s\n", name_w, "kernel", obj_w, "object",
              "LDS-stat", "LDS-dyn", "LDS-cap", "VGPR", "AGPR", "SGPR", "scratch", "spillV/S", "wg", "waves/SIMD",
              "status");
  std::size_t failed = 0;
  for (const auto& c : checks) {
    const auto& k = c.kernel;
    std::string waves = std::to_string(c.occupancy.waves_per_simd) + " (" + c.occupancy.limiter + ")";
    std::printf("%-*s %-*s %8llu %8zu %8zu %5d %5d %5d %8llu %8s %5d %-10s %s\n", name_w,
                short_name(k.demangled).c_str(), obj_w, k.object.c_str(), static_cast<unsigned long long>(k.static_lds), c.expected.dynamic_lds,
                c.lds_capacity, k.vgprs, k.agprs, k.sgprs, static_cast<unsigned long long>(k.scratch),
                (std::to_string(k.vgpr_spills) + "/" + std::to_string(k.sgpr_spills)).c_str(), c.workgroup_size, waves.c_str(), c.violations.empty() ? "ok" : "VIOLATION");
    if (!c.violations.empty()) ++failed;
  }
  std::printf("\n");
  for (const auto& c : checks) {
    if (c.expected.source != "no plan")
      std::printf("  %s: expectations from %s\n", short_name(c.kernel.demangled).c_str(),
                  c.expected.source.c_str());
    for (const auto& v : c.violations)
      std::printf("  VIOLATION %s [%s]: %s\n", short_name(c.kernel.demangled).c_str(), c.kernel.object.c_str(),
                  v.c_str());
  }
  for (const auto& p : problems) std::printf("  VIOLATION %s\n", p.c_str());
  if (checks.empty() && problems.empty()) {
    std::printf("no kernel code objects in %s (no *.kernel.cpp built for %s)\n", dir.string().c_str(),
                o.arch.c_str());
    return 0;
  }
  const std::size_t bad = failed + problems.size();
  std::printf("%zu kernels checked for %s: %zu within budget, %zu violating%s\n", checks.size(), o.arch.c_str(),
              checks.size() - failed, failed,
              problems.empty() ? "" : (", " + std::to_string(problems.size()) + " other problems").c_str());
  return bad == 0 ? 0 : 1;
}

dsv4::cli::Registrar reg{
    "kernels", "AMD code objects: LDS, VGPR/SGPR, scratch and occupancy of every kernel against the arch budget",
    [](dsv4::cli::Args& sub) -> dsv4::cli::Action {
      auto o = std::make_shared<Options>();
      sub.add_option("--arch", o->arch, "gfx90a, gfx942 or gfx950")->required();
      sub.add_option("--objects", o->objects,
                     "folder of <name>.notes.txt files (default: this build's objects for --arch)");
      sub.add_option("--dynamic-lds", o->dynamic_lds, "NAME=BYTES: dynamic LDS of kernels whose name contains NAME");
      sub.add_option("--static-lds", o->static_lds, "NAME=BYTES: expected static LDS (cross-check)");
      sub.add_option("--workgroup", o->workgroup, "NAME=THREADS: workgroup size for the occupancy estimate");
      sub.add_option("--allow-scratch", o->allow_scratch, "NAME: kernels whose name contains NAME may use scratch");
      sub.add_flag("--no-plans", o->no_plans, "ignore the host plans (only the options above)");
      return [o] { return run(*o); };
    }};

}  // namespace
