// Checks of a shape JSON (the generator's input: `repro --shape`, `fuzz --shape`, default shapes)
// before anything is generated or allocated:
// - every key is one of the op's shape fields (the keys its generator reads, declared by its descriptor
//   through set_shape_fields), or "values" / "attr.<name>" (the fuzz value layer); an unknown key is an
//   InputError that lists the op's fields;
// - the tensors the shape asks for fit in memory. Sizes come from the descriptor's shape rules
//   (ArgSpec::shape, e.g. "[N, K]", "[B·next_n, H]", "[num_blocks, block_kv, 1, D+4]") evaluated with the
//   shape's integers, at the smallest admitted element size; optional inputs, and a rule naming something
//   the shape does not give, are skipped (so the estimate is a lower bound and never refuses a shape that fits).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4 {

// Declares the shape fields of `op` (called by its register_<op>(); a second call replaces the first).
void set_shape_fields(const std::string& op, std::vector<std::string> fields);
// The declared fields of `op` (empty when it declares none).
std::vector<std::string> shape_fields(const std::string& op);

// Throws InputError naming the first unknown key and listing the op's fields. No-op when the op
// declares no fields.
void check_shape_fields(const OpDescriptor& d, const Json& shape);

struct PlannedTensor {
  std::string arg;     // "input 'b'" or "output 'out'"
  std::string rule;    // the shape rule, e.g. "[M, K]"
  std::vector<std::int64_t> dims;
  double bytes = 0;    // at the smallest admitted element size
  std::size_t element_bytes = 0;
};

// The tensors whose shape rule the shape determines (required inputs, then outputs).
std::vector<PlannedTensor> planned_tensors(const OpDescriptor& d, const Json& shape);

// One rule evaluated with a shape: nullopt when the rule names a value the shape does not give.
std::optional<std::vector<std::int64_t>> eval_shape_rule(const std::string& rule, const Json& shape);

// Throws InputError when one planned tensor, or all of them together, need more than `available_bytes`
// ("skinny_gemm: input 'b' [M, K] = [100000, 100000000] needs 18.2 TiB (2 bytes per element); ...").
void check_shape_fits(const OpDescriptor& d, const Json& shape, double available_bytes);

// Memory this process may still take: MemAvailable of /proc/meminfo (or physical pages available),
// lowered to the address-space limit (RLIMIT_AS) when one is set.
double available_memory_bytes();

// Both checks with this machine's available memory.
void check_shape(const OpDescriptor& d, const Json& shape);

// 1536 -> "1.5 KiB", 2e13 -> "18.2 TiB".
std::string human_bytes(double bytes);

}  // namespace dsv4
