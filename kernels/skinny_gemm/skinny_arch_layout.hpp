// What an arch-specific skinny GEMM path (kernels/nvidia/skinny_gemm: the sm_90 tensor-core kernels) plugs into the
// portable plan: its layout, carried by SkinnyPlan::arch_layout and read through this interface only, and its plan
// maker, which make_plan calls for the profiles whose kernels live outside kernels/skinny_gemm. The portable code
// never names an arch path's fields or rules; the launcher, the describe text and the runner's report reach them here.
// Invariant: a plan with an arch layout runs that layout's kernels (launch), never the portable kernel.
#pragma once
#include <cstddef>
#include <string>

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

// The plan of a profile whose kernels live outside kernels/skinny_gemm (sm_90: kernels/nvidia/skinny_gemm/
// sm90_plan.cpp, built for cuda and sim). Defined by the builds that have such kernels; make_plan calls it for those
// profiles only.
SkinnyPlan make_arch_plan(const SkinnyShape& shape, const port::ArchProfile& arch, const SkinnyOptions& opt);

}  // namespace dsv4::kernels::skinny
