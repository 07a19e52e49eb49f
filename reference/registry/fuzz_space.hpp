// An op's fuzz facts, part of its descriptor (OpDescriptor::fuzz, written in reference/ops/<op>/fuzz_space.cpp):
// where its shapes are drawn from at each scale, which inputs the value distributions rewrite, its contract-legal
// special values, and whether its contract makes a kernel bit-deterministic. fuzz/generators/ applies these
// generically (value distributions, attr.* keys, campaign spaces); a kernel entry may replace the campaign shapes
// with shapes on its own plan's boundaries (KernelEntry::campaign_shapes).
//
// Invariant: every case drawn from these is inside the op's contract (validate_case and the reference accept it);
// specials only use values the contract admits.
#pragma once
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dsv4 {

struct OpCase;

// Campaign: shapes across the full range (dispatch boundaries of every arch profile, large sizes).
// Test: small shapes that still sit on alignment edges (ctest on the simulator).
enum class ShapeScale { campaign, test };

struct FuzzSpace {
  // A shape (the op generator's keys plus optional "attr.<name>" keys; never "values": the fuzz layer adds it).
  std::function<nlohmann::json(std::mt19937_64& rng, ShapeScale scale)> shapes;
  // Floating inputs the distributions rewrite (float or fp8 tensors).
  std::vector<std::string> value_inputs;
  // The subset scaled by tiny_scale / huge_scale (one factor of each product, so results stay finite).
  std::vector<std::string> scale_inputs;
  // Op-specific special values (contract-legal only); runs after the op's generator.
  std::function<void(OpCase& c, const nlohmann::json& shape, std::mt19937_64& rng)> specials;
  // Whether the op's contract makes the kernel bit-deterministic (two runs, any schedule, same bits).
  bool deterministic = false;
  std::string determinism_note;  // the contract sentence or reason
};

}  // namespace dsv4
