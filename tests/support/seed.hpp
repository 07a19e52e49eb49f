// Test seeds: every random test draws from test_seed(), which is printed once per process and
// named in the one-line repro command printed on failure (tests/support/test_main.cpp).
// Override with DSV4_SEED=<u64>; the default is fixed so CI runs are repeatable.
#pragma once
#include <cstdint>
#include <random>
#include <string>

namespace dsv4::test {

// The process-wide base seed (DSV4_SEED or the fixed default).
std::uint64_t base_seed();

// A seed for one named test: base_seed() mixed with the name, so tests do not share streams.
std::uint64_t test_seed(const std::string& test_name);

// A generator seeded for the currently running gtest test (suite.name).
std::mt19937_64 rng_for_current_test();

}  // namespace dsv4::test
