// The skinny GEMM's arch-path table (skinny_arch_layout.hpp): filled once, on first lookup, by the build's
// registration (register_builtin_arch_paths, kernels/builtin_kernels.cpp), read by make_plan and the fuzz boundaries.
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/skinny_gemm/skinny_arch_layout.hpp"

namespace dsv4::kernels::skinny {

void register_builtin_arch_paths();  // kernels/builtin_kernels.cpp

namespace {
std::vector<ArchPath>& paths() {
  static std::vector<ArchPath> v;
  return v;
}
// Runs the build's registration exactly once (thread-safe static initialisation), before the first lookup.
const std::vector<ArchPath>& registered() {
  static const bool done = (register_builtin_arch_paths(), true);
  (void)done;
  return paths();
}
}  // namespace

void register_arch_path(const ArchPath& path) {
  if (!path.profile || !path.make_plan) throw std::logic_error("skinny_gemm: an arch path without profile or plan maker");
  for (const ArchPath& p : paths())
    if (p.profile->arch == path.profile->arch)
      throw std::logic_error("skinny_gemm: a second arch path for " + std::string(path.profile->name));
  paths().push_back(path);
}

const ArchPath* find_arch_path(port::Arch arch) {
  for (const ArchPath& p : registered())
    if (p.profile->arch == arch) return &p;
  return nullptr;
}

std::vector<const port::ArchProfile*> arch_path_profiles() {
  std::vector<const port::ArchProfile*> r;
  for (const ArchPath& p : registered()) r.push_back(p.profile);
  return r;
}

}  // namespace dsv4::kernels::skinny
