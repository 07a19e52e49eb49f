// Parser of the AMDGPU code-object metadata text and the per-arch budget check (see amd_notes.hpp).
// The metadata is the YAML rendering of the msgpack note: a list `amdhsa.kernels:` whose items start with "  - "
// and whose own keys sit at column 4 (".name:", ".group_segment_fixed_size:", ...); deeper lines (.args) are
// skipped. Only the fields the budgets use are read; a kernel missing one of the required ones is an error.
#include "tools/dsv4check/amd_notes.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <memory>

namespace dsv4::amd {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> p(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                           std::free);
  return status == 0 && p ? std::string(p.get()) : symbol;
}

std::uint64_t to_u64(std::string_view v, std::string_view key, const std::string& where) {
  std::uint64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc{} || ptr != v.data() + v.size())
    throw NotesError(where + ": " + std::string(key) + " is not a non-negative integer (got '" + std::string(v) +
                     "')");
  return out;
}

void assign(KernelResources& k, std::map<std::string, bool>& seen, std::string_view key, std::string_view value,
            const std::string& where) {
  auto num = [&] { return to_u64(value, key, where); };
  auto small = [&] { return static_cast<int>(std::min<std::uint64_t>(num(), 1u << 30)); };
  if (key == ".name") {
    k.symbol = std::string(value);
  } else if (key == ".group_segment_fixed_size") {
    k.static_lds = num();
  } else if (key == ".private_segment_fixed_size") {
    k.scratch = num();
  } else if (key == ".uses_dynamic_stack") {
    k.dynamic_stack = value == "true";
  } else if (key == ".vgpr_count") {
    k.vgprs = small();
  } else if (key == ".agpr_count") {
    k.agprs = small();
  } else if (key == ".sgpr_count") {
    k.sgprs = small();
  } else if (key == ".vgpr_spill_count") {
    k.vgpr_spills = small();
  } else if (key == ".sgpr_spill_count") {
    k.sgpr_spills = small();
  } else if (key == ".wavefront_size") {
    k.wave_size = small();
  } else if (key == ".max_flat_workgroup_size") {
    k.max_workgroup_size = small();
  } else {
    return;
  }
  seen[std::string(key)] = true;
}

constexpr std::string_view kRequired[] = {".name", ".group_segment_fixed_size", ".private_segment_fixed_size",
                                          ".vgpr_count", ".sgpr_count", ".wavefront_size",
                                          ".max_flat_workgroup_size"};

int ceil_div(std::size_t a, std::size_t b) { return static_cast<int>((a + b - 1) / b); }
std::size_t round_up(std::size_t a, std::size_t g) { return (a + g - 1) / g * g; }

// SGPR-limited waves per SIMD on GFX9 (800 SGPRs per SIMD; the allocation steps of the GFX9 ISA).
int waves_by_sgprs(int sgprs) {
  if (sgprs <= 80) return 10;
  if (sgprs <= 88) return 9;
  if (sgprs <= 100) return 8;
  return 7;
}

std::string kib(std::size_t bytes) {
  std::string s = std::to_string(bytes) + " B";
  if (bytes % 1024 == 0 && bytes > 0) s += " (" + std::to_string(bytes / 1024) + " KiB)";
  return s;
}

}  // namespace

std::vector<KernelResources> parse_notes(std::string_view text, const std::string& object) {
  std::vector<KernelResources> out;
  std::vector<std::map<std::string, bool>> seen;
  std::string target;
  bool in_doc = false, in_kernels = false, any_doc = false;
  std::size_t line_no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    std::string_view t = trim(line);
    if (t == "---") {
      in_doc = any_doc = true;
      in_kernels = false;
      continue;
    }
    if (t == "...") {
      in_doc = in_kernels = false;
      continue;
    }
    if (!in_doc || t.empty()) continue;
    std::size_t indent = line.find_first_not_of(' ');
    const std::string where = object + ":" + std::to_string(line_no);
    if (indent == 0) {  // top-level key
      in_kernels = t.starts_with("amdhsa.kernels:");
      if (t.starts_with("amdhsa.target:")) target = std::string(trim(t.substr(14)));
      continue;
    }
    if (!in_kernels) continue;
    std::string_view body = line.substr(indent);
    std::size_t column = indent;
    if (indent == 2 && body.starts_with("- ")) {  // a new kernel; its first key follows the dash
      out.emplace_back();
      seen.emplace_back();
      body = trim(body.substr(2));
      column = 4;
    }
    if (column != 4 || out.empty()) continue;  // nested (.args entries) or stray
    std::size_t colon = body.find(':');
    if (colon == std::string_view::npos) continue;
    assign(out.back(), seen.back(), trim(body.substr(0, colon)), trim(body.substr(colon + 1)), where);
  }
  if (!any_doc) throw NotesError(object + ": no AMDGPU metadata document (expected llvm-readelf --notes output)");
  if (out.empty()) throw NotesError(object + ": the AMDGPU metadata lists no kernel (amdhsa.kernels is empty)");
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::string_view key : kRequired)
      if (!seen[i].count(std::string(key)))
        throw NotesError(object + ": kernel #" + std::to_string(i) + " (" +
                         (out[i].symbol.empty() ? "unnamed" : out[i].symbol) + ") has no " + std::string(key));
    out[i].demangled = demangle(out[i].symbol);
    out[i].object = object;
    out[i].target = target;
  }
  return out;
}

const ArchBudget* arch_budget(std::string_view name) {
  // gfx90a (MI200, CDNA2) and gfx942 (MI300, CDNA3): 64 KiB LDS per CU, 512-byte LDS granule (LLVM AMDGPUUsage,
  // COMPUTE_PGM_RSRC2.GRANULATED_LDS_SIZE: GFX7+ roundup(lds-size / (128 * 4))). gfx950 (MI355X, CDNA4): 160 KiB
  // per workgroup and per CU (AMDGPUUsage / AMDGPUBaseInfo: addressable local memory 163840 for GFX950; clang
  // refuses more, ctest amd.compile.lds_over_capacity_refused.gfx950), allocated in 1280-byte blocks (AMDGPUUsage:
  // GFX950 roundup(lds-size / (320 * 4)); "LDS is allocated in 320 dword blocks" in AMDGPUAsmPrinter). All:
  // unified 512-entry VGPR file per lane (arch VGPRs + AGPRs), granule 8, 8 wave slots per SIMD (LLVM: 8 waves per
  // EU with AGPRs), 4 SIMDs per CU; the occupancy estimate is checked against clang's remark per arch.
  static constexpr ArchBudget kBudgets[] = {
      {"gfx90a", 64, 64 * 1024, 64 * 1024, 512, 512, 8, 8, 4},
      {"gfx942", 64, 64 * 1024, 64 * 1024, 512, 512, 8, 8, 4},
      {"gfx950", 64, 160 * 1024, 160 * 1024, 1280, 512, 8, 8, 4},
  };
  for (const auto& b : kBudgets)
    if (b.name == name) return &b;
  return nullptr;
}

std::string known_arch_names() { return "gfx90a, gfx942, gfx950"; }

Occupancy estimate_occupancy(const KernelResources& k, const ArchBudget& arch, std::size_t lds_bytes,
                             int workgroup_size) {
  Occupancy o;
  o.by_slots = arch.max_waves_per_simd;
  const std::size_t vgprs = round_up(static_cast<std::size_t>(std::max(k.vgprs, 1)), arch.vgpr_granule);
  o.by_vgprs = std::min<int>(arch.max_waves_per_simd, static_cast<int>(arch.vgprs_per_lane / vgprs));
  o.by_sgprs = std::min(arch.max_waves_per_simd, waves_by_sgprs(k.sgprs));
  const int waves_per_group = ceil_div(static_cast<std::size_t>(std::max(workgroup_size, 1)), arch.wave_size);
  // Workgroups per CU: wave slots, the 16-workgroup barrier limit for multi-wave groups, and LDS.
  int groups = arch.max_waves_per_simd * arch.simds_per_cu / waves_per_group;
  if (waves_per_group > 1) groups = std::min(groups, 16);
  if (lds_bytes > 0) {
    const std::size_t alloc = round_up(lds_bytes, arch.lds_granule);
    groups = std::min<int>(groups, static_cast<int>(arch.lds_per_cu / alloc));
  }
  // A workgroup's waves spread over the SIMDs: waves per SIMD = ceil(groups * waves/group / SIMDs).
  o.by_lds = lds_bytes == 0 ? arch.max_waves_per_simd
                            : std::min(arch.max_waves_per_simd,
                                       ceil_div(static_cast<std::size_t>(groups) * waves_per_group,
                                                arch.simds_per_cu));
  o.waves_per_simd = std::min({o.by_vgprs, o.by_sgprs, o.by_lds, o.by_slots});
  // One workgroup needs ceil(waves/group / SIMDs) wave slots per SIMD that its registers allow.
  if (std::min(o.by_vgprs, o.by_sgprs) < ceil_div(static_cast<std::size_t>(waves_per_group), arch.simds_per_cu))
    o.waves_per_simd = 0;
  if (o.waves_per_simd == arch.max_waves_per_simd) o.limiter = "slots";
  else if (o.waves_per_simd == o.by_vgprs) o.limiter = "vgprs";
  else if (o.waves_per_simd == o.by_sgprs) o.limiter = "sgprs";
  else if (o.waves_per_simd == o.by_lds) o.limiter = "lds";
  else if (o.waves_per_simd == o.by_slots) o.limiter = "slots";
  else o.limiter = "does not fit";
  return o;
}

KernelCheck check_kernel(const KernelResources& k, const ArchBudget& arch, const KernelExpectation& e) {
  KernelCheck c;
  c.kernel = k;
  c.expected = e;
  c.lds_capacity = arch.lds_per_workgroup;
  c.workgroup_size = e.workgroup_size > 0 ? e.workgroup_size : k.max_workgroup_size;
  auto& v = c.violations;
  if (!k.target.empty() && !k.target.ends_with("--" + std::string(arch.name)) &&
      k.target.find("--" + std::string(arch.name) + ":") == std::string::npos)
    v.push_back("object built for '" + k.target + "', checked as " + std::string(arch.name));
  if (k.wave_size != arch.wave_size)
    v.push_back("wavefront size " + std::to_string(k.wave_size) + ", the kernels assume " +
                std::to_string(arch.wave_size));
  const std::size_t lds = k.static_lds + e.dynamic_lds;
  if (lds > arch.lds_per_workgroup)
    v.push_back("LDS static " + kib(k.static_lds) + " + dynamic " + kib(e.dynamic_lds) + " = " + kib(lds) +
                " exceeds the " + std::string(arch.name) + " capacity " + kib(arch.lds_per_workgroup));
  if (e.static_lds && *e.static_lds != k.static_lds)
    v.push_back("static LDS in the code object is " + kib(k.static_lds) + " but the host plan (" + e.source +
                ") says " + kib(*e.static_lds));
  if (!e.scratch_allowed) {
    if (k.scratch > 0) v.push_back("uses " + std::to_string(k.scratch) + " B/lane of scratch; it promises none");
    if (k.dynamic_stack) v.push_back("uses a dynamic stack; it promises no scratch");
    // VGPR spills always go to scratch memory. SGPR spills go to VGPR lanes (v_writelane), which costs VGPRs
    // but no memory; if they reach memory, the scratch size above is non-zero and says so.
    if (k.vgpr_spills > 0)
      v.push_back("spills " + std::to_string(k.vgpr_spills) + " VGPRs to scratch; it promises no scratch");
  }
  if (c.workgroup_size > k.max_workgroup_size)
    v.push_back("launched with " + std::to_string(c.workgroup_size) + " threads per workgroup, above the " +
                "object's .max_flat_workgroup_size " + std::to_string(k.max_workgroup_size));
  c.occupancy = estimate_occupancy(k, arch, lds, c.workgroup_size);
  if (c.occupancy.waves_per_simd == 0 && lds <= arch.lds_per_cu)  // (too much LDS is reported above)
    v.push_back("a workgroup of " + std::to_string(c.workgroup_size) + " threads does not fit one CU (" +
                std::to_string(k.vgprs) + " VGPRs, " + std::to_string(k.sgprs) + " SGPRs, " + kib(lds) + " LDS)");
  return c;
}

}  // namespace dsv4::amd
