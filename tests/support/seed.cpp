// Seed derivation for tests; see seed.hpp.
#include "tests/support/seed.hpp"

#include <cstdlib>
#include <gtest/gtest.h>

namespace dsv4::test {

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("DSV4_SEED"); s && *s) return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 0));
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

}  // namespace dsv4::test
