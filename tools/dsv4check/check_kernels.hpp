// Kernel rows of `dsv4check check`: for every op, the implementation under test of this build's
// backend (its registered kernel) against the float64 reference under the op's default oracle policy,
// over the kernel's check shapes (else the op's default shapes), a few seeds each. An op without a
// kernel on this backend gets a row saying so (verdict "no kernel"), never a pass.
#pragma once
#include <string>
#include <vector>

#include "tools/dsv4check/check_table.hpp"

namespace dsv4::cli {

struct KernelCheckOptions {
  std::string backend;  // empty = this build's backend
  std::string arch;
  int seeds = 2;
};

std::vector<SelfCheck> kernel_checks(const KernelCheckOptions& o);

}  // namespace dsv4::cli
