// Test helpers of the block-scaled fp8 GEMM / einsum kernel tests: run a case through the tools' runner path on an
// arch profile (outputs poisoned, written-check, default oracle policy = error_model.md bound, tile map), a fixture
// that emulates the arch and wave size on sim, and scale-byte / fp8-code editing of generated cases.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "tests/kernels/kernel_case.hpp"

namespace dsv4::test::bs {

using kern::Checked;

// As kern::run_and_judge, with an arch profile name ("" = the backend's default).
inline Checked run_on(const std::string& op, OpCase c, const std::string& arch, const std::string& variant = "default") {
  const OpDescriptor& d = kern::descriptor(op);
  validate_case(d, c);
  Checked r;
  r.expected = d.reference(c);
  fuzz::UnderTestOptions o;
  o.backend = kernels::backend_name();
  o.arch = arch;
  o.variant = variant;
  r.run = fuzz::run_under_test(d, c, r.expected, o);
  oracle::JudgeOptions jo;
  jo.poison = r.run.poison;
  r.verdict = oracle::judge(d, c, r.expected, r.run.outputs, jo, r.run.tiles ? &*r.run.tiles : nullptr);
  r.c = std::move(c);
  return r;
}

// Kernel fixture: skips without a device; on sim emulates `arch` (LDS capacity) and a wave size per test.
class BsKernelTest : public kern::KernelTest {
 protected:
  // Sim: emulate the profile and wave size (0 = the profile's). GPU: only the device's own arch is meaningful.
  static bool use_arch(const std::string& arch, int wave = 0) {
    if (!port::sim::sim_active()) return arch.empty() || arch == std::string(port::device_profile().name);
    port::sim::Options o;
    if (!arch.empty()) o.arch = *port::parse_arch(arch);
    o.wave_size = wave;
    port::sim::set_options(o);
    return true;
  }
  // The arch profiles to run on: gfx950 (e4m3fn) and gfx942 (e4m3fnuz) on sim; the device's own on a GPU.
  static std::vector<std::string> archs() {
    if (port::sim::sim_active()) return {"gfx950", "gfx942"};
    return {std::string(port::device_profile().name)};
  }
};

// UE8M0 byte of scale (row, group) in an F8_E8M0 [rows, G] or packed I32 [rows, ceil(G/4)] tensor.
inline void set_scale_byte(Tensor& sf, std::int64_t row, std::int64_t g, std::uint32_t byte) {
  if (sf.dtype() == DType::I32) {
    std::uint32_t w = static_cast<std::uint32_t>(sf.code({row, g / 4}));
    const int sh = static_cast<int>(8 * (g % 4));
    w = (w & ~(0xFFu << sh)) | ((byte & 0xFFu) << sh);
    sf.set_code({row, g / 4}, w);
  } else {
    sf.set_code({row, g}, byte);
  }
}

// The same codes reinterpreted as another fp8 dtype (0x80, NaN in fnuz, becomes 0x00 unless keep_nan): a valid
// case of that flavour for the arch tests (values differ, the reference decodes them by the new dtype).
inline Tensor recode_fp8(const Tensor& t, DType to, bool keep_nan = false) {
  Tensor out = Tensor::empty(to, t.shape());
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    std::uint64_t c = t.code_linear(i);
    if (to == DType::F8_E4M3FNUZ && c == 0x80 && !keep_nan) c = 0;
    out.set_code_linear(i, c);
  }
  return out;
}

inline std::string fp8_name_for(const std::string& arch) { return arch == "gfx942" ? "e4m3fnuz" : "e4m3fn"; }

}  // namespace dsv4::test::bs
