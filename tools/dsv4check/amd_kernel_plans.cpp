// Host-plan expectations per kernel family (see amd_kernel_plans.hpp). The numbers come from the plans
// themselves (kernels/<op>/*_plan.hpp), never re-derived here: for each family a sweep over the shapes its
// dispatch predicate admits gives the largest dynamic LDS, and the plan's static LDS is what its kernel declares
// through DSV4_LDS (the skinny GEMM declares none: all of its LDS is the dynamic lds_alloc_bytes).
#include "tools/dsv4check/amd_kernel_plans.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::amd {
namespace {

// The arch profile a plan is made for: gfx90a has gfx942's LDS capacity (64 KiB) and wave size, and the plans
// have no gfx90a profile of their own.
const port::ArchProfile& plan_profile(std::string_view arch) {
  return arch == "gfx950" ? port::kGfx950 : port::kGfx942;
}

// Skinny GEMM: the fixed variant over N 1..128, a K grid through every shard-count and CHUNKK boundary up to
// 64 Ki, M from one tile to many, both CHUNKK choices forced and the rule. Returns the largest lds_alloc_bytes
// and the (common) block size of the admitted plans.
KernelExpectation skinny_expectation(std::string_view arch) {
  namespace sk = dsv4::kernels::skinny;
  const port::ArchProfile& prof = plan_profile(arch);
  KernelExpectation e;
  e.static_lds = 0;
  e.source = "skinny plan sweep (" + std::string(prof.name) + " profile)";
  std::size_t admitted = 0;
  for (std::int64_t n = 1; n <= 128; ++n)
    for (std::int64_t k : {8, 64, 520, 1024, 2048, 3080, 4096, 5120, 7168, 8192, 12288, 16384, 24576, 32768, 65536})
      for (std::int64_t m : {16, 64, 256, 1024, 4096, 16384})
        for (int chunkk : {0, 1, 2}) {
          sk::SkinnyShape s;
          s.n = n;
          s.k = k;
          s.m = m;
          sk::SkinnyOptions o;
          o.force_chunkk = chunkk;
          const sk::SkinnyPlan p = sk::make_plan(s, prof, o);
          if (!p.ok) continue;
          ++admitted;
          e.dynamic_lds = std::max(e.dynamic_lds, p.lds_alloc_bytes);
          e.workgroup_size = std::max(e.workgroup_size, p.block);
        }
  e.source += ", " + std::to_string(admitted) + " admitted plans";
  return e;
}

struct Family {
  std::string_view name_contains;  // in the demangled kernel name
  KernelExpectation (*expectation)(std::string_view arch);
};
constexpr Family kFamilies[] = {
    {"dsv4::kernels::skinny::", skinny_expectation},
};

}  // namespace

std::optional<KernelExpectation> plan_expectation(std::string_view demangled, std::string_view arch) {
  for (const Family& f : kFamilies)
    if (demangled.find(f.name_contains) != std::string_view::npos) return f.expectation(arch);
  return std::nullopt;
}

}  // namespace dsv4::amd
