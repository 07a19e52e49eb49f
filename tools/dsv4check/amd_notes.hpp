// AMD code-object budgets: reads the AMDGPU metadata of a device-only code object (the text of
// `llvm-readelf-19 --notes`, written beside each object by cmake/AmdCompileCheck.cmake), and checks each kernel's
// LDS, registers, scratch and occupancy against a per-arch budget. Pure host C++, no LLVM library needed.
//
// Invariant: the occupancy estimate is min(by VGPRs, by SGPRs, by LDS, the arch's wave limit) waves per SIMD, for
// the workgroup size the plan launches with (or the object's .max_flat_workgroup_size when no plan says); it is an
// estimate of the hardware's resource limits, not a performance model (docs/amd.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dsv4::amd {

// Bad or unexpected notes text; what() names the file and the rule.
struct NotesError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One kernel's resource usage, as the code object's metadata states it.
struct KernelResources {
  std::string symbol;     // .name (mangled)
  std::string demangled;  // readable C++ name (== symbol if it does not demangle)
  std::string object;     // which object (file stem) it came from
  std::string target;     // amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx942"
  std::uint64_t static_lds = 0;  // .group_segment_fixed_size (bytes)
  std::uint64_t scratch = 0;     // .private_segment_fixed_size (bytes per lane)
  bool dynamic_stack = false;    // .uses_dynamic_stack
  int vgprs = 0;                 // .vgpr_count (on gfx90a+ the unified count: arch VGPRs + AGPRs)
  int agprs = 0;                 // .agpr_count
  int sgprs = 0;                 // .sgpr_count
  int vgpr_spills = 0, sgpr_spills = 0;
  int wave_size = 0;             // .wavefront_size
  int max_workgroup_size = 0;    // .max_flat_workgroup_size
};

// Parses the notes text (llvm-readelf --notes output, or the bare YAML document). `object` names the source in
// errors and in KernelResources::object. Throws NotesError when no AMDGPU metadata or a kernel lacks a field.
std::vector<KernelResources> parse_notes(std::string_view text, const std::string& object);

// Per-arch facts the budgets use.
struct ArchBudget {
  std::string_view name;             // "gfx90a", "gfx942", "gfx950"
  int wave_size;                     // 64 on CDNA
  std::size_t lds_per_workgroup;     // bytes one workgroup may allocate (static + dynamic)
  std::size_t lds_per_cu;            // bytes of LDS per CU shared by resident workgroups
  std::size_t lds_granule;           // allocation granularity of LDS (bytes)
  int vgprs_per_lane;                // unified VGPR file per SIMD lane (arch + acc), 512 on CDNA2/3/4
  int vgpr_granule;                  // allocation granularity of VGPRs per wave
  int max_waves_per_simd;            // hardware wave slots per SIMD
  int simds_per_cu;
};
// nullptr for an arch without a profile; known_arch_names() lists those that have one.
const ArchBudget* arch_budget(std::string_view name);
std::string known_arch_names();  // "gfx90a, gfx942, gfx950"

// What a kernel promises or its host plan says; the check compares the object against it.
struct KernelExpectation {
  std::size_t dynamic_lds = 0;              // largest dynamic LDS any admitted plan launches with (bytes)
  std::optional<std::size_t> static_lds;    // the plan's static LDS: must equal the object's (cross-check)
  bool scratch_allowed = false;             // default promise: no scratch, no VGPR spills, no dynamic stack
                                            // (SGPR spills into VGPR lanes are shown, not a violation)
  int workgroup_size = 0;                   // threads per workgroup; 0: the object's .max_flat_workgroup_size
  std::string source;                       // where the expectation came from ("skinny plan sweep", "--dynamic-lds")
};

struct Occupancy {
  int waves_per_simd = 0;  // the estimate: min of the four below (0: one workgroup does not fit)
  int by_vgprs = 0, by_sgprs = 0, by_lds = 0, by_slots = 0;
  std::string limiter;     // "vgprs", "sgprs", "lds", "slots" (the first that attains the minimum)
};
// Waves per SIMD, from the kernel's VGPRs, SGPRs and LDS (static + dynamic) for `workgroup_size` threads.
Occupancy estimate_occupancy(const KernelResources& k, const ArchBudget& arch, std::size_t lds_bytes,
                             int workgroup_size);

struct KernelCheck {
  KernelResources kernel;
  KernelExpectation expected;
  std::size_t lds_capacity = 0;
  int workgroup_size = 0;  // the one used for occupancy
  Occupancy occupancy;
  std::vector<std::string> violations;  // empty: within budget
};
KernelCheck check_kernel(const KernelResources& k, const ArchBudget& arch, const KernelExpectation& e);

}  // namespace dsv4::amd
