// A whole-wave inclusive scan in DPP as ROCm kernels write it (immediates): row_shr 1, 2, 4, 8 inside each row, then
// row_bcast15 under row_mask 0xA (rows 1 and 3 add the row before) and row_bcast31 under row_mask 0xC (rows 2 and 3
// add lane 31), checked against prefix sums computed here; and its planted misuses, one executable each:
// - BUG_DIVERGENT_DPP: lanes 32-63 skip the DPP (if (lane < 32) ...): a wave-collective that live lanes skip must be
//   reported as wave_divergence.
// - BUG_INVALID_CTRL: a dpp_ctrl that is no gfx9 control (0x131, reserved), passed at run time (a constant one is a
//   compile error, tests/hipsim/compile_errors/dpp_invalid_ctrl.hip): reported as kernel_exception naming it.
// Rule: values are non-zero and distinct per lane.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void wave_scan(const int* in, int* out, int bad_ctrl) {
  const int l = threadIdx.x;
  int x = in[l];
#if defined(BUG_DIVERGENT_DPP)
  if (l < 32) x += __builtin_amdgcn_mov_dpp(x, 0x111, 0xF, 0xF, true);  // row_shr:1
#elif defined(BUG_INVALID_CTRL)
  x += __builtin_amdgcn_mov_dpp(x, bad_ctrl, 0xF, 0xF, true);
#else
  x += __builtin_amdgcn_mov_dpp(x, 0x111, 0xF, 0xF, true);  // row_shr:1
#endif
  x += __builtin_amdgcn_mov_dpp(x, 0x112, 0xF, 0xF, true);  // row_shr:2
  x += __builtin_amdgcn_update_dpp(0, x, 0x114, 0xF, 0xF, false);  // row_shr:4, old 0 for the row's first lanes
  x += __builtin_amdgcn_update_dpp(0, x, 0x118, 0xF, 0xF, false);  // row_shr:8
  x += __builtin_amdgcn_update_dpp(0, x, 0x142, 0xA, 0xF, false);  // row_bcast:15 row_mask:0xa
  x += __builtin_amdgcn_update_dpp(0, x, 0x143, 0xC, 0xF, false);  // row_bcast:31 row_mask:0xc
  out[l] = x;
  (void)bad_ctrl;
}

int main(int argc, char** argv) {
  const int bad_ctrl = argc > 1 ? int(std::strtol(argv[1], nullptr, 0)) : 0x131;
  std::vector<int> in(64);
  for (int l = 0; l < 64; ++l) in[l] = 3 * l + 1;
  int *din = nullptr, *dout = nullptr;
  hipMalloc(&din, sizeof(int) * 64);
  hipMalloc(&dout, sizeof(int) * 64);
  hipMemcpy(din, in.data(), sizeof(int) * 64, hipMemcpyHostToDevice);
  wave_scan<<<1, 64>>>(din, dout, bad_ctrl);
  const hipError_t e = hipDeviceSynchronize();
  std::vector<int> got(64);
  hipMemcpy(got.data(), dout, sizeof(int) * 64, hipMemcpyDeviceToHost);
  int bad = e != hipSuccess;
  for (int l = 0; l < 64; ++l) {
    int want = 0;  // inclusive prefix sum over the wave
    for (int k = 0; k <= l; ++k) want += in[k];
    if (got[l] != want && ++bad <= 10) std::printf("FAIL lane %d: got %d want %d\n", l, got[l], want);
  }
  std::printf(bad ? "FAIL\n" : "PASS\n");
  hipFree(din); hipFree(dout);
  return bad ? 1 : 0;
}
