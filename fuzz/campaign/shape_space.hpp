// Shape spaces for fuzzing: where an op's shapes are drawn from. An op may register its own space
// (dispatch boundaries, alignment edges, LDS/workspace limits of each arch profile); otherwise the
// generic space mutates the op's default shapes: each integer field may move to a neighbour (+-1),
// double, halve, or land on a multiple of 16/64/128 and its +-1 neighbours. Shapes the generator
// rejects are counted as discards, never as failures.
#pragma once
#include <functional>
#include <random>
#include <string>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz {

using ShapeSpace = std::function<Json(std::mt19937_64& rng)>;

void register_shape_space(const std::string& op, ShapeSpace space);

// A shape for op d drawn from its registered space, else from the generic mutation of
// d.default_shapes (and `extra_bases`, e.g. a kernel's check shapes).
Json draw_shape(const OpDescriptor& d, std::mt19937_64& rng, const std::vector<Json>& extra_bases = {});

// Shrink candidates of a shape: each integer field halved, and minus one (never below 1).
std::vector<Json> shrink_candidates(const Json& shape);

// "k=v,k=v" (the --shape syntax of repro/fuzz); string values unquoted.
std::string shape_arg(const Json& shape);

}  // namespace dsv4::fuzz
