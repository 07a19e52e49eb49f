// Per-op fuzz generator specs (issue #8): for every registered op, a shape space with alignment edges
// and dispatch boundaries (for ops with a kernel, derived from that kernel's plan limits per arch
// profile) and a value-distribution layer applied to the generated OpCase.
//
// The layer is driven by two kinds of keys in the op's shape JSON, so that the shape JSON plus the
// case seed reproduce a case exactly (`dsv4check repro --shape ...,values=specials --seed S`):
//   "values": one of normal | heavy_tailed | all_equal | tiny_scale | huge_scale | specials
//             (absent = the op generator's own draw, bit-identical to before this layer existed);
//   "attr.<name>": an attribute of the case (e.g. attr.scale_layout=packed_ue8m0), set after the
//             op's generator ran and before validation.
// install_generators() wraps every descriptor's generator with this layer (the wrapper strips those
// keys before calling the op's own generator, then draws the value transform from the same engine)
// and registers the campaign shape spaces. It is idempotent; fuzz::prepare_registry() calls it.
//
// Invariant: every case a spec generates is inside its op's contract (validate_case and the reference
// accept it); specials only use values the contract admits (e.g. sparse decode: only -1 is invalid;
// no duplicate indices, ops.md §2).
#pragma once
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz {

enum class ValueDist { normal, heavy_tailed, all_equal, tiny_scale, huge_scale, specials };
inline constexpr ValueDist kAllValueDists[] = {ValueDist::normal,     ValueDist::heavy_tailed, ValueDist::all_equal,
                                               ValueDist::tiny_scale, ValueDist::huge_scale,   ValueDist::specials};
const char* value_dist_name(ValueDist v);
std::optional<ValueDist> parse_value_dist(const std::string& s);

// Campaign: shapes across the full range (dispatch boundaries of every arch profile, large sizes).
// Test: small shapes that still sit on alignment edges (ctest on the simulator).
enum class ShapeScale { campaign, test };

struct OpGenSpec {
  std::string op;
  // A shape (the op generator's keys; no "values" key: the caller adds it).
  std::function<Json(std::mt19937_64& rng, ShapeScale scale)> shapes;
  // Floating inputs the distributions rewrite (float or fp8 tensors).
  std::vector<std::string> value_inputs;
  // The subset scaled by tiny_scale / huge_scale (one factor of each product, so results stay finite).
  std::vector<std::string> scale_inputs;
  // Op-specific special values (contract-legal only); runs after the op's generator.
  std::function<void(OpCase& c, const Json& shape, std::mt19937_64& rng)> specials;
  // Whether the op's contract makes the kernel bit-deterministic (two runs, any schedule, same bits).
  bool deterministic = false;
  std::string determinism_note;  // the contract sentence or reason
};

// All specs, one per registered op (13), in registry order.
const std::vector<OpGenSpec>& op_gen_specs();
const OpGenSpec* find_gen_spec(const std::string& op);

// A shape for `op` from its spec at `scale`, with a "values" knob drawn uniformly (or `values` if given).
Json draw_spec_shape(const OpGenSpec& spec, std::mt19937_64& rng, ShapeScale scale,
                     std::optional<ValueDist> values = std::nullopt);

// Applies distribution `v` to a generated case (used by the wrapped generator; exposed for tests).
void apply_value_dist(const OpGenSpec& spec, OpCase& c, const Json& shape, ValueDist v, std::mt19937_64& rng);

// Wraps the registry's generators with the value/attr layer and registers the campaign shape spaces.
void install_generators();

}  // namespace dsv4::fuzz
