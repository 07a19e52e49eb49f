// Test helper shared by the kernel tests of every op: runs a case
// through the tools' path (fuzz::run_under_test on this build's backend: outputs poisoned first, the kernel
// registry's runner, plan JSON) and judges it against the float64 reference with the op's default oracle policy,
// the written-check on and the plan's tile map. Also a fixture that sets / restores the sim wave size.
#pragma once
#include <gtest/gtest.h>

#include <mutex>
#include <string>

#include "fuzz/harness/under_test.hpp"
#include "kernels/kernel_registry.hpp"
#include "kernels/port/runtime.hpp"
#include "kernels/port/sim.hpp"
#include "oracle/default_policies.hpp"
#include "oracle/judge.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::test::kern {

struct Checked {
  OpCase c;
  Outputs expected;
  fuzz::UnderTestRun run;
  oracle::JudgeResult verdict;
  std::string summary() const {
    std::string s = run.plan.is_object() ? run.plan.value("text", std::string()) : std::string();
    for (const auto& v : verdict.outputs)
      s += "\n  " + v.output + ": " + (v.pass ? "pass" : "FAIL") + " failed=" + std::to_string(v.failed) + " of " +
           std::to_string(v.checked) + (v.where.summary.empty() ? "" : " (" + v.where.summary + ")");
    return s;
  }
  const oracle::Verdict& of(const std::string& out) const {
    for (const auto& v : verdict.outputs)
      if (v.output == out) return v;
    throw std::logic_error("no verdict for " + out);
  }
};

inline const OpDescriptor& descriptor(const std::string& op) {
  static std::once_flag once;
  std::call_once(once, [] { oracle::require_default_policies(Registry::instance()); });
  const OpDescriptor* d = Registry::instance().find(op);
  if (!d) throw std::logic_error("op not registered: " + op);
  return *d;
}

// Validates c, runs the reference and the kernel (variant), judges. `drop` removes an output from both sides
// (an optional output the kernel is asked not to write).
inline Checked run_and_judge(const std::string& op, OpCase c, const std::string& variant = "default",
                             const std::string& drop = "") {
  const OpDescriptor& d = descriptor(op);
  validate_case(d, c);
  Checked r;
  r.expected = d.reference(c);
  if (!drop.empty()) r.expected.erase(drop);
  fuzz::UnderTestOptions o;
  o.backend = kernels::backend_name();
  o.variant = variant;
  r.run = fuzz::run_under_test(d, c, r.expected, o);
  oracle::JudgeOptions jo;
  jo.poison = r.run.poison;
  r.verdict = oracle::judge(d, c, r.expected, r.run.outputs, jo, r.run.tiles ? &*r.run.tiles : nullptr);
  r.c = std::move(c);
  return r;
}

inline OpCase generate(const std::string& op, const Json& shape, std::mt19937_64& rng) {
  return descriptor(op).generate(rng, shape);
}

// Device fixture: skips without a device; on sim restores default options around each test.
class KernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!port::device_available()) GTEST_SKIP() << port::device_unavailable_reason();
    if (port::sim::sim_active()) {
      port::sim::reset_options();
      (void)port::sim::take_report();
    }
  }
  void TearDown() override {
    if (port::sim::sim_active()) {
      const auto rep = port::sim::take_report();
      EXPECT_TRUE(rep.empty()) << rep.to_string();
      port::sim::reset_options();
    }
  }
  // Wave sizes to test: both on sim (an override of the gfx950 profile), the device's own on a GPU.
  static std::vector<int> waves() {
    if (port::sim::sim_active()) return {64, 32};
    return {port::device_profile().wave_size};
  }
  static void use_wave(int w) {
    if (!port::sim::sim_active()) return;
    port::sim::Options o;
    o.wave_size = w;
    port::sim::set_options(o);
  }
  // Sim only: wave size w under a seeded random schedule that also preempts at global loads/stores.
  static void use_random_schedule(int w, std::uint64_t seed) {
    port::sim::Options o;
    o.wave_size = w;
    o.schedule = port::sim::Schedule::random;
    o.preempt_global = true;
    o.seed = seed;
    port::sim::set_options(o);
  }
};

}  // namespace dsv4::test::kern
