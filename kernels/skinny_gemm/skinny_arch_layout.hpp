// What an arch-specific skinny GEMM path (kernels/nvidia/skinny_gemm: the sm_90 tensor-core kernels) plugs into the
// portable plan: its layout, carried by SkinnyPlan::arch_layout and read through this interface only, and its
// registration (ArchPath: the profile it serves and its plan maker), which make_plan consults before the portable
// plan. The portable code never names an arch path's fields or rules; the launcher, the describe text and the
// runner's report reach them here.
// Invariants: a plan with an arch layout runs that layout's kernels (launch), never the portable kernel; at most one
// path per arch; paths are registered by kernels/builtin_kernels.cpp before any plan is made (make_plan makes sure).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernels/port/arch.hpp"

namespace dsv4::port {
class Stream;
}

namespace dsv4::kernels::skinny {

struct SkinnyShape;
struct SkinnyOptions;
struct SkinnyPlan;
struct SkinnyBuffers;

class ArchLayout {
 public:
  virtual ~ArchLayout() = default;
  // The layout in SkinnyPlan::describe's words (kernel, tiles, ring, slices, reduction), without a leading space.
  virtual std::string describe(const SkinnyPlan& plan) const = 0;
  // The layout as the runner reports it: the plan JSON holds report(plan) under report_key().
  virtual std::string report_key() const = 0;
  virtual nlohmann::json report(const SkinnyPlan& plan) const = 0;
  // Launches the layout's kernel for an admitted plan (launch_skinny_gemm has checked admission, pointers and the
  // workspace); `declared_workspace_bytes` is what the launch declares it touches.
  virtual void launch(const SkinnyPlan& plan, const SkinnyBuffers& io, void* workspace,
                      std::size_t declared_workspace_bytes, port::Stream& stream) const = 0;
};

// An arch path: the profile whose kernels live outside kernels/skinny_gemm and the plan maker make_plan hands that
// profile to. The skinny entry's fuzz boundaries also draw the path's profile (skinny_plan_sweep.cpp).
struct ArchPath {
  const port::ArchProfile* profile = nullptr;
  SkinnyPlan (*make_plan)(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt) = nullptr;
};

// Registers a path (std::logic_error for a second path of the same arch or a null member). Builds with an arch
// path's kernels call it once per path from kernels/builtin_kernels.cpp (sm_90: cuda and sim, not hip).
void register_arch_path(const ArchPath& path);
// The path registered for `arch`, or null (the portable plan's profiles, or a build without that path's kernels).
const ArchPath* find_arch_path(port::Arch arch);
// The profiles of every registered path, in registration order.
std::vector<const port::ArchProfile*> arch_path_profiles();

}  // namespace dsv4::kernels::skinny
