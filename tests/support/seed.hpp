// Test seeds: every random test draws from test_seed(), which is printed once per process and
// named in the one-line repro command printed on failure (tests/support/test_main.cpp).
// Override with DSV4_SEED=<u64>; the default is fixed so CI runs are repeatable. RapidCheck properties
// (RC_GTEST_PROP) run from RapidCheck's own seed (RC_PARAMS), which is printed and named in the same
// command: a fresh one per run unless DSV4_SEED or RC_PARAMS is given, so properties keep exploring.
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

// Sets RC_PARAMS to "seed=<s>" unless the caller set it (s: base_seed() when DSV4_SEED is given, else fresh);
// call before any RapidCheck property runs (RapidCheck reads RC_PARAMS once, on first use).
void install_rapidcheck_seed();
// The RC_PARAMS in effect ("" before install_rapidcheck_seed() when the caller set none).
std::string rapidcheck_params();

// The one-line command that reproduces one test of this binary: both seeds, the binary, the filter.
std::string repro_command(const std::string& argv0, const std::string& suite, const std::string& name);

}  // namespace dsv4::test
