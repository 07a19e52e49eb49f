// Extra kernel runners known to dsv4check, registered on first lookup (explicitly, so nothing depends on
// static-initialiser order), e.g. add_kernel_runner("skinny_gemm", "hipblaslt", run_hipblaslt). Not needed for
// kernels in kernels/kernel_registry.hpp (found on this build's backend) nor for "reference" (built in).
#include "tools/dsv4check/kernel_runner.hpp"

namespace dsv4::cli {

void register_builtin_kernel_runners() {}

}  // namespace dsv4::cli
