// The kernels of this build, registered explicitly when the kernel registry is first used.
// A new kernel adds one register_<op>_kernel declaration and call here.
#include "kernels/kernel_registry.hpp"

namespace dsv4::kernels {

void register_builtin_kernels(KernelRegistry& r) { (void)r; }

}  // namespace dsv4::kernels
