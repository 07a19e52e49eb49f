// Tests of the AMD code-object budget check (tools/dsv4check/amd_notes): the metadata parser on hand-written
// notes, the occupancy estimate and the budget rules on hand-derived numbers, and the same on real code objects of
// the fixture kernels in this folder (built by cmake/AmdCompileCheck.cmake), where the expected numbers come from
// the fixture sources (array sizes) and the occupancy is compared with clang's own figure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tools/dsv4check/amd_notes.hpp"

namespace {

using namespace dsv4::amd;
namespace fs = std::filesystem;

// Shaped as llvm-readelf-19 --notes prints it (header lines, then the YAML document), two kernels.
constexpr const char* kNotes = R"(Displaying notes found in: .note
  Owner                Data size 	Description
  AMDGPU               0x000004eb	NT_AMDGPU_METADATA (AMDGPU Metadata)
    AMDGPU Metadata:
        ---
amdhsa.kernels:
  - .agpr_count:     4
    .args:
      - .address_space:  global
        .name:           ignored_arg_name
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 4096
    .kernarg_segment_align: 8
    .max_flat_workgroup_size: 256
    .name:           _Z3fooPf
    .private_segment_fixed_size: 0
    .sgpr_count:     92
    .sgpr_spill_count: 0
    .uses_dynamic_stack: false
    .vgpr_count:     82
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .args:           []
    .group_segment_fixed_size: 0
    .max_flat_workgroup_size: 1024
    .name:           _ZN2ns3barILi3EEEvv
    .private_segment_fixed_size: 528
    .sgpr_count:     30
    .sgpr_spill_count: 2
    .uses_dynamic_stack: true
    .vgpr_count:     6
    .vgpr_spill_count: 3
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
)";

TEST(AmdNotes, ParsesEveryBudgetFieldOfEachKernel) {
  auto ks = parse_notes(kNotes, "two");
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].symbol, "_Z3fooPf");
  EXPECT_EQ(ks[0].demangled, "foo(float*)");
  EXPECT_EQ(ks[0].target, "amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(ks[0].object, "two");
  EXPECT_EQ(ks[0].static_lds, 4096u);
  EXPECT_EQ(ks[0].vgprs, 82);
  EXPECT_EQ(ks[0].agprs, 4);
  EXPECT_EQ(ks[0].sgprs, 92);
  EXPECT_EQ(ks[0].scratch, 0u);
  EXPECT_FALSE(ks[0].dynamic_stack);
  EXPECT_EQ(ks[0].max_workgroup_size, 256);
  EXPECT_EQ(ks[0].wave_size, 64);
  EXPECT_EQ(ks[1].demangled, "void ns::bar<3>()");
  EXPECT_EQ(ks[1].scratch, 528u);
  EXPECT_TRUE(ks[1].dynamic_stack);
  EXPECT_EQ(ks[1].vgpr_spills, 3);
  EXPECT_EQ(ks[1].sgpr_spills, 2);
  EXPECT_EQ(ks[1].max_workgroup_size, 1024);
}

TEST(AmdNotes, RejectsTextWithoutMetadataOrWithMissingFields) {
  EXPECT_THROW(parse_notes("Displaying notes found in: .note\n", "empty"), NotesError);
  std::string no_vgpr = kNotes;
  const std::string vgpr_line = "    .vgpr_count:     82\n";
  no_vgpr.erase(no_vgpr.find(vgpr_line), vgpr_line.size());
  try {
    parse_notes(no_vgpr, "novgpr");
    FAIL() << "a kernel without .vgpr_count was accepted";
  } catch (const NotesError& e) {
    EXPECT_NE(std::string(e.what()).find(".vgpr_count"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("_Z3fooPf"), std::string::npos) << e.what();
  }
  std::string bad = kNotes;
  bad.replace(bad.find("4096"), 4, "40x6");
  EXPECT_THROW(parse_notes(bad, "bad"), NotesError);
}

KernelResources kernel(int vgprs, int sgprs, std::uint64_t lds, int wg) {
  KernelResources k;
  k.symbol = k.demangled = "k";
  k.target = "amdgcn-amd-amdhsa--gfx942";
  k.vgprs = vgprs;
  k.sgprs = sgprs;
  k.static_lds = lds;
  k.max_workgroup_size = wg;
  k.wave_size = 64;
  return k;
}

TEST(AmdOccupancy, HandDerivedLimits) {
  const ArchBudget& g942 = *arch_budget("gfx942");
  const ArchBudget& g950 = *arch_budget("gfx950");
  // VGPRs: 82 -> 88 allocated, 512/88 = 5; 128 -> 4; 512 -> 1; 24 -> 21, capped at 8 slots.
  EXPECT_EQ(estimate_occupancy(kernel(82, 30, 0, 256), g942, 0, 256).by_vgprs, 5);
  EXPECT_EQ(estimate_occupancy(kernel(128, 30, 0, 256), g942, 0, 256).waves_per_simd, 4);
  EXPECT_EQ(estimate_occupancy(kernel(512, 30, 0, 256), g942, 0, 256).waves_per_simd, 1);
  auto o = estimate_occupancy(kernel(24, 30, 0, 256), g942, 0, 256);
  EXPECT_EQ(o.waves_per_simd, 8);
  EXPECT_EQ(o.limiter, "slots");
  // LDS: 20 KiB, 128 threads (2 waves). gfx942: 65536/20480 = 3 groups = 6 waves over 4 SIMDs -> 2.
  // gfx950: 20480 is 16 blocks of 1280 B; 163840/20480 = 8 groups = 16 waves -> 4.
  o = estimate_occupancy(kernel(16, 30, 20480, 128), g942, 20480, 128);
  EXPECT_EQ(o.by_lds, 2);
  EXPECT_EQ(o.waves_per_simd, 2);
  EXPECT_EQ(o.limiter, "lds");
  EXPECT_EQ(estimate_occupancy(kernel(16, 30, 20480, 128), g950, 20480, 128).by_lds, 4);
  // LDS granule: 33 KiB + 1 B rounds to 33.5 KiB on gfx942 (512 B) -> 1 group; 1024 threads = 16 waves -> 4.
  EXPECT_EQ(estimate_occupancy(kernel(16, 30, 0, 1024), g942, 33 * 1024 + 1, 1024).by_lds, 4);
  // gfx950's 1280-byte granule: 32513 B is 26 blocks = 33280 B, 163840/33280 = 4 one-wave groups -> 1 wave per
  // SIMD (a 512-byte granule would allocate 32768 B: 5 groups -> 2).
  EXPECT_EQ(estimate_occupancy(kernel(16, 30, 0, 64), g950, 32513, 64).by_lds, 1);
  // 1024 threads need 4 waves per SIMD: 160 VGPRs (3 waves) cannot hold one workgroup.
  EXPECT_EQ(estimate_occupancy(kernel(160, 30, 0, 1024), g942, 0, 1024).waves_per_simd, 0);
  EXPECT_EQ(estimate_occupancy(kernel(128, 30, 0, 1024), g942, 0, 1024).waves_per_simd, 4);
}

TEST(AmdBudget, LdsStaticPlusDynamicAgainstCapacity) {
  KernelExpectation e;
  e.dynamic_lds = 32 * 1024;
  auto k = kernel(32, 30, 48 * 1024, 256);
  auto c = check_kernel(k, *arch_budget("gfx942"), e);
  ASSERT_EQ(c.violations.size(), 1u);
  EXPECT_NE(c.violations[0].find("81920 B (80 KiB) exceeds the gfx942 capacity 65536 B (64 KiB)"),
            std::string::npos)
      << c.violations[0];
  k.target = "amdgcn-amd-amdhsa--gfx950";
  EXPECT_TRUE(check_kernel(k, *arch_budget("gfx950"), e).violations.empty());  // 80 KiB <= 160 KiB
  e.dynamic_lds = 112 * 1024;  // exactly 160 KiB: allowed on gfx950, one byte more is not
  EXPECT_TRUE(check_kernel(k, *arch_budget("gfx950"), e).violations.empty());
  e.dynamic_lds += 1;
  EXPECT_EQ(check_kernel(k, *arch_budget("gfx950"), e).violations.size(), 1u);
  e.dynamic_lds = 16 * 1024;  // exactly 64 KiB: allowed
  k.target = "amdgcn-amd-amdhsa--gfx942";
  EXPECT_TRUE(check_kernel(k, *arch_budget("gfx942"), e).violations.empty());
}

TEST(AmdBudget, ScratchSpillsWaveSizeTargetAndPlanCrossCheck) {
  const ArchBudget& a = *arch_budget("gfx942");
  auto k = kernel(32, 30, 1024, 256);
  k.scratch = 16;
  k.vgpr_spills = 2;
  KernelExpectation e;
  EXPECT_EQ(check_kernel(k, a, e).violations.size(), 2u);  // scratch + VGPR spills
  e.scratch_allowed = true;
  EXPECT_TRUE(check_kernel(k, a, e).violations.empty());
  k = kernel(32, 30, 1024, 256);
  k.sgpr_spills = 6;  // into VGPR lanes, no scratch: shown, not a violation
  EXPECT_TRUE(check_kernel(k, a, {}).violations.empty());
  k.dynamic_stack = true;
  EXPECT_EQ(check_kernel(k, a, {}).violations.size(), 1u);
  k = kernel(32, 30, 1024, 256);
  k.wave_size = 32;
  EXPECT_EQ(check_kernel(k, a, {}).violations.size(), 1u);
  k = kernel(32, 30, 1024, 256);
  k.target = "amdgcn-amd-amdhsa--gfx90a";
  EXPECT_EQ(check_kernel(k, a, {}).violations.size(), 1u);
  k.target = "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-";
  EXPECT_TRUE(check_kernel(k, a, {}).violations.empty());
  e = {};
  e.static_lds = 2048;
  e.source = "test plan";
  auto c = check_kernel(kernel(32, 30, 1024, 256), a, e);
  ASSERT_EQ(c.violations.size(), 1u);
  EXPECT_NE(c.violations[0].find("host plan (test plan) says 2048"), std::string::npos) << c.violations[0];
  e.workgroup_size = 512;  // launched wider than the object's .max_flat_workgroup_size 256
  e.static_lds = 1024;
  EXPECT_EQ(check_kernel(kernel(32, 30, 1024, 256), a, e).violations.size(), 1u);
}

// ---- real code objects of the fixture kernels ----------------------------------------------------------------

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> built_archs() {
  std::vector<std::string> out;
  std::stringstream ss(DSV4_AMD_BUILT_ARCHS);
  for (std::string a; std::getline(ss, a, ',');)
    if (!a.empty()) out.push_back(a);
  return out;
}

std::map<std::string, KernelResources> fixture_kernels(const std::string& arch) {
  std::map<std::string, KernelResources> out;
  for (const char* stem : {"within_budget", "lds_over_budget", "uses_scratch", "occupancy_probe"}) {
    fs::path p = fs::path(DSV4_AMD_FIXTURE_DIR) / arch / (std::string("tests__kernels__amd__") + stem + ".notes.txt");
    if (!fs::exists(p)) ADD_FAILURE() << "fixture object not built: " << p;
    else
      for (auto& k : parse_notes(slurp(p), stem)) out[k.symbol] = k;
  }
  return out;
}

const KernelResources& find(const std::map<std::string, KernelResources>& ks, const std::string& name) {
  for (auto& [sym, k] : ks)
    if (k.demangled.find(name) != std::string::npos) return k;
  throw std::runtime_error("no kernel " + name + " in the fixture objects");
}

TEST(AmdFixtureObjects, StaticLdsScratchAndBudgetsAsTheSourcesSay) {
  const auto archs = built_archs();
  if (archs.empty()) GTEST_SKIP() << "AMD compile check is OFF (no clang-22/rocm-device-libs): no code objects";
  for (const auto& arch : archs) {
    SCOPED_TRACE(arch);
    const ArchBudget& a = *arch_budget(arch);
    const auto ks = fixture_kernels(arch);
    // DSV4_LDS(float, tile, 1024) -> 4096 B; 16 KiB dynamic is within budget.
    const auto& ok = find(ks, "amd_fixture_within_budget");
    EXPECT_EQ(ok.static_lds, 1024u * 4);
    EXPECT_EQ(ok.target, "amdgcn-amd-amdhsa--" + arch);
    KernelExpectation e;
    e.dynamic_lds = 16 * 1024;
    e.static_lds = 4096;
    auto c = check_kernel(ok, a, e);
    EXPECT_TRUE(c.violations.empty()) << c.violations.front();
    EXPECT_EQ(c.workgroup_size, 256);
    // DSV4_LDS(float, big, 12288) -> 49152 B; + dynamic LDS up to 16 KiB over the capacity (gfx90a/gfx942: 32 KiB
    // dynamic, 80 KiB > 64 KiB; gfx950: 128 KiB dynamic, 176 KiB > 160 KiB).
    const auto& over = find(ks, "amd_fixture_lds_over_budget");
    EXPECT_EQ(over.static_lds, 12288u * 4);
    e = {};
    e.dynamic_lds = (arch == "gfx950" ? 160 : 64) * 1024 + 16 * 1024 - 49152;
    c = check_kernel(over, a, e);
    ASSERT_EQ(c.violations.size(), 1u);
    EXPECT_NE(c.violations[0].find("exceeds the " + arch + " capacity"), std::string::npos) << c.violations[0];
    // A run-time indexed private array of 96 floats lives in scratch: at least 384 B per lane.
    const auto& scr = find(ks, "amd_fixture_uses_scratch");
    EXPECT_GE(scr.scratch, 96u * 4);
    c = check_kernel(scr, a, {});
    ASSERT_FALSE(c.violations.empty());
    EXPECT_NE(c.violations[0].find("scratch"), std::string::npos) << c.violations[0];
    e = {};
    e.scratch_allowed = true;
    EXPECT_TRUE(check_kernel(scr, a, e).violations.empty());
    // 20 KiB static LDS (5120 floats), 2048 floats for the wide one.
    EXPECT_EQ(find(ks, "amd_fixture_occ_lds").static_lds, 5120u * 4);
    EXPECT_EQ(find(ks, "amd_fixture_occ_wide").static_lds, 2048u * 4);
  }
}

// clang's remark "Occupancy [waves/SIMD]: N" per "Function Name: <symbol>", from <stem>.remarks.txt.
std::map<std::string, int> compiler_occupancy(const fs::path& remarks) {
  std::map<std::string, int> out;
  std::stringstream ss(slurp(remarks));
  std::string current;
  for (std::string line; std::getline(ss, line);) {
    auto f = line.find("Function Name: ");
    if (f != std::string::npos) {
      current = line.substr(f + 15);
      current = current.substr(0, current.find(' '));
    }
    auto o = line.find("Occupancy [waves/SIMD]: ");
    if (o != std::string::npos && !current.empty()) out[current] = std::stoi(line.substr(o + 24));
  }
  return out;
}

TEST(AmdFixtureObjects, OccupancyEstimateMatchesTheCompilersFigure) {
  const auto archs = built_archs();
  if (archs.empty()) GTEST_SKIP() << "AMD compile check is OFF (no clang-22/rocm-device-libs): no code objects";
  for (const auto& arch : archs) {
    SCOPED_TRACE(arch);
    const ArchBudget& a = *arch_budget(arch);
    int compared = 0;
    std::map<std::string, int> limiters;
    for (const char* stem : {"within_budget", "lds_over_budget", "occupancy_probe"}) {
      fs::path base = fs::path(DSV4_AMD_FIXTURE_DIR) / arch / (std::string("tests__kernels__amd__") + stem);
      const auto clang = compiler_occupancy(base.string() + ".remarks.txt");
      for (const auto& k : parse_notes(slurp(base.string() + ".notes.txt"), stem)) {
        ASSERT_TRUE(clang.count(k.symbol)) << "no compiler occupancy remark for " << k.symbol;
        // The compiler assumes .max_flat_workgroup_size threads and only the static LDS.
        auto o = estimate_occupancy(k, a, k.static_lds, k.max_workgroup_size);
        EXPECT_EQ(o.waves_per_simd, clang.at(k.symbol)) << k.demangled << " limited by " << o.limiter;
        ++limiters[o.limiter];
        ++compared;
      }
    }
    EXPECT_EQ(compared, 5);
    EXPECT_GE(limiters["lds"], 1);    // occ_lds, lds_over_budget
    EXPECT_GE(limiters["vgprs"], 1);  // occ_vgpr
  }
}

}  // namespace
