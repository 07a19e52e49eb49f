// Fixture files: one op invocation (inputs, attributes, outputs under test, optional goldens) as a
// safetensors file, so PyTorch users can write one with `safetensors.torch.save_file`. docs/fixtures.md is
// the user-facing description; the schema ("dsv4check-fixture/1"):
//
//   metadata  "schema" = "dsv4check-fixture/1" (required), "op" = registry name = ops.md section (required),
//             "attrs" = JSON object as a string (optional; an attribute left out takes its default),
//             "seed" (decimal integer), "source", "note" (optional); "format" (written by some HF helpers) is
//             ignored; any other key is an error.
//   tensors   "<input>" for each input argument (ops.md names), "out.<output>" for outputs under test,
//             "expected.<output>" for optional trusted goldens.
//
// FNUZ and E8M0 tensors are stored as U8. A U8 tensor whose argument does not admit U8 is re-typed:
//   1. by the fixture-level attribute "dtypes": {"<tensor name as stored>": "F8_E4M3FNUZ", ...} (removed from
//      the op's attributes before they are validated); else
//   2. to the argument's only admitted one-byte dtype; else
//   3. to the fp8 format named by the first of the op's attributes (in descriptor order, given or default) whose
//      value is a format name the argument admits ("e4m3fn", "e4m3fnuz", "e5m2", "e5m2fnuz", "e8m0", or a dtype
//      name), e.g. `fp8_dtype` or `output_fp8_format`; else it is an error naming the tensor.
// The writer records every FNUZ/E8M0 tensor in "dtypes", so rule 1 always applies to files it writes.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "reference/io/safetensors.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::io {

inline constexpr const char* kFixtureSchema = "dsv4check-fixture/1";

// A violation of the fixture schema (the container itself was valid). An InputError: exit code 2.
struct FixtureError : InputError {
  using InputError::InputError;
};

struct Fixture {
  std::string op;
  Json attrs = Json::object();  // the op's attributes as given (no "dtypes"; defaults not filled in)
  std::optional<std::uint64_t> seed;
  std::string source, note;
  // What the simulator reported while it made the out.* tensors ({"total", "items": [{"kind", "text"}]},
  // written by repro --save and fuzz; null when none was recorded). Metadata key "sim_findings" (JSON text).
  Json sim_findings = nullptr;
  std::map<std::string, Tensor> inputs;    // by argument name
  std::map<std::string, Tensor> outputs;   // "out.<name>" by output name
  std::map<std::string, Tensor> expected;  // "expected.<name>" by output name

  // The op case (inputs and attributes as given; run validate_case to fill defaults).
  OpCase to_case() const;
};

// Reads and validates a fixture against the op registry: schema, op known, attrs a JSON object of the
// right types, tensor names known to the op, required inputs present, dtypes admitted. Throws
// SafetensorsError or FixtureError naming the file and the tensor or key.
Fixture parse_fixture(const SafetensorsFile& file);
Fixture read_fixture(const std::filesystem::path& path);

// Writes a fixture (the metadata above; FNUZ/E8M0 tensors as U8 named in attrs "dtypes").
std::vector<std::byte> serialize_fixture(const Fixture& f);
void write_fixture(const std::filesystem::path& path, const Fixture& f);

// The one-byte dtype named by an fp8 attribute value ("e4m3fn", "e4m3fnuz", "e5m2", "e5m2fnuz", "e8m0"), or by a
// dtype name ("F8_E4M3FNUZ", ...); nullopt for anything else.
std::optional<DType> byte_dtype_from_name(const std::string& s);

}  // namespace dsv4::io
