// Kernel registry; see kernel_registry.hpp.
#include "kernels/kernel_registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace dsv4::kernels {

void register_builtin_kernels(KernelRegistry& r);  // builtin_kernels.cpp

KernelRegistry& KernelRegistry::instance() {
  static KernelRegistry* r = [] {
    auto* reg = new KernelRegistry;
    register_builtin_kernels(*reg);
    return reg;
  }();
  return *r;
}

void KernelRegistry::add(KernelEntry e) {
  if (find(e.op)) throw std::logic_error("kernel registered twice for op " + e.op);
  entries_.push_back(std::move(e));
}

const KernelEntry* KernelRegistry::find(const std::string& op) const {
  for (auto& e : entries_) if (e.op == op) return &e;
  return nullptr;
}

std::vector<const KernelEntry*> KernelRegistry::all() const {
  std::vector<const KernelEntry*> r;
  for (auto& e : entries_) r.push_back(&e);
  std::sort(r.begin(), r.end(), [](auto* a, auto* b) { return a->op < b->op; });
  return r;
}

void KernelRegistry::add_plan_sweeps_without_op(std::vector<PlanSweep> s) {
  for (PlanSweep& p : s) without_op_.push_back(std::move(p));
}

std::vector<const PlanSweep*> KernelRegistry::plan_sweeps() const {
  std::vector<const PlanSweep*> r;
  for (const KernelEntry& e : entries_)
    for (const PlanSweep& p : e.plan_sweeps) r.push_back(&p);
  for (const PlanSweep& p : without_op_) r.push_back(&p);
  return r;
}

const char* backend_name() {
#if defined(DSV4_BACKEND_CUDA)
  return "cuda";
#elif defined(DSV4_BACKEND_HIP)
  return "hip";
#else
  return "sim";
#endif
}

}  // namespace dsv4::kernels
