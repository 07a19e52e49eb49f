// The fuzz generator layer (issue #8), generic over the registry: every op's fuzz space (OpDescriptor::fuzz,
// reference/registry/fuzz_space.hpp: shape space at two scales, value inputs, specials, determinism; written in
// reference/ops/<op>/fuzz_space.cpp), with its kernel's plan boundaries applied to campaign shapes where the kernel
// entry offers them (KernelEntry::onto_plan_boundaries), and a value-distribution layer applied to the generated
// OpCase.
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

// One op's fuzz space with its name; `shapes` has the kernel's plan boundaries applied at campaign scale.
struct OpGenSpec : FuzzSpace {
  std::string op;
};

// The specs of the registered ops that have a fuzz space (every op must: the descriptor tests say which lack one).
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
