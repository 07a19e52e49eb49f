// Seed derivation for tests; see seed.hpp.
#include "tests/support/seed.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <random>

namespace dsv4::test {

namespace {
// DSV4_SEED when set and non-empty, else null.
const char* given_seed() {
  const char* s = std::getenv("DSV4_SEED");
  return s && *s ? s : nullptr;
}
}  // namespace

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = given_seed()) return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 0));
    return std::uint64_t{0x5eed0d5e4c4ecull};
  }();
  return seed;
}

std::uint64_t test_seed(const std::string& test_name) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the name, then mixed with the base seed
  for (unsigned char c : test_name) h = (h ^ c) * 1099511628211ull;
  std::uint64_t z = h ^ base_seed();
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::mt19937_64 rng_for_current_test() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "none";
  return std::mt19937_64(test_seed(name));
}

void install_rapidcheck_seed() {
  if (const char* p = std::getenv("RC_PARAMS"); p && *p) return;
  std::uint64_t seed = base_seed();
  if (!given_seed()) {
    std::random_device rd;
    seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  setenv("RC_PARAMS", ("seed=" + std::to_string(seed)).c_str(), 1);
}

std::string rapidcheck_params() {
  const char* p = std::getenv("RC_PARAMS");
  return p ? p : "";
}

std::string repro_command(const std::string& argv0, const std::string& suite, const std::string& name) {
  std::string cmd = "DSV4_SEED=" + std::to_string(base_seed());
  if (const std::string rc = rapidcheck_params(); !rc.empty()) cmd = "RC_PARAMS='" + rc + "' " + cmd;
  return cmd + " " + argv0 + " --gtest_filter='" + suite + "." + name + "'";
}

}  // namespace dsv4::test
