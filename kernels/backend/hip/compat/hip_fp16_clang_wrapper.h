// Force-included (-include) by the AMD compile check of plain-HIP kernels: HIP 5.2's <hip/hip_fp16.h> (Debian)
// calls __llvm_amdgcn_rcp_f16 and __llvm_amdgcn_rcp_2f16, which its hip_fp16_math_fwd.h declares only when clang's
// HIP runtime wrapper is not in use, and clang-22 always uses the wrapper. Declared here from the rcp builtin, for
// HIP < 6 only; newer headers do not use these names.
// Rules: nothing else; a kernel that never includes <hip/hip_fp16.h> is unaffected.
#pragma once
#include <hip/hip_version.h>
#if HIP_VERSION_MAJOR < 6 && defined(__HIP_DEVICE_COMPILE__)
extern "C" __attribute__((device)) inline _Float16 __llvm_amdgcn_rcp_f16(_Float16 x) { return __builtin_amdgcn_rcph(x); }
template <class V>
__attribute__((device)) inline V __llvm_amdgcn_rcp_2f16(V x) {
  return V{__builtin_amdgcn_rcph(x.x), __builtin_amdgcn_rcph(x.y)};
}
#endif
