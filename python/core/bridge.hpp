// The Python API's C++ side (libdsv4check_pycore.so): the registry, the references, `verify`'s judgement and the
// fixture writer behind an interface of standard types only, so that the binding (python/binding/) compiles
// against this one header plus Python and pybind11, with none of the project's dependencies (fmt, Eigen,
// nlohmann): that is what lets tools/scripts/python-bundle.sh build the binding on a machine without them.
//
// Arrays come in as views of host memory (element (0,...,0), element strides, any sign); they are copied before
// the call returns. Bad input throws std::invalid_argument (dsv4::InputError) naming the op, the tensor or
// attribute and what the schema admits; the binding turns it into ValueError.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dsv4py {

// A host array handed in by the binding. `dtype` is a dtype name of reference/tensor/dtype.hpp ("F32", "BF16",
// "F8_E4M3FNUZ", "U8", ...); strides are in elements.
struct ArrayView {
  std::string dtype;
  std::vector<std::int64_t> shape, strides;
  const std::byte* data = nullptr;
};
using ArrayViews = std::map<std::string, ArrayView>;

// An array handed back: contiguous, row-major, `dtype` as above.
struct Array {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> bytes;
};

// One judged op call: passed, the text `dsv4check verify` prints for it (named `name`), and the oracle's JSON
// verdict (what `verify --json` prints under "outputs").
struct Judgement {
  bool pass = false;
  std::string text;
  std::string json;
};

// The registry as JSON: [{name, summary, contract, inputs, outputs, attrs, oracle, default_shapes}], with the
// oracle's default policies installed.
std::string registry_json();

// The dtype name ("F8_E4M3FNUZ", "BF16", ...) of a dtype spelling admitted by fixtures ("F8_E4M3FNUZ",
// "e4m3fnuz", "BF16", ...); empty when it names none.
std::string canonical_dtype(const std::string& spelling);

// The op's reference outputs (attrs: a JSON object as text, "" = none).
std::map<std::string, Array> reference(const std::string& op, const ArrayViews& inputs, const std::string& attrs_json);

// Judges `outputs` (by output name) against the recomputed reference, exactly as `dsv4check verify` judges the
// fixture that save_fixture would write for these arguments.
Judgement judge(const std::string& op, const ArrayViews& inputs, const ArrayViews& outputs,
                const std::string& attrs_json, const std::string& name);

// The fixture file (docs/fixtures.md) for these arguments; source and note may be empty.
std::vector<std::byte> fixture_bytes(const std::string& op, const ArrayViews& inputs, const ArrayViews& outputs,
                                     const std::string& attrs_json, const std::string& source,
                                     const std::string& note);

// A generated case of the op (its registry generator at default shape `shape_index`, seeded): inputs and attrs.
struct Case {
  std::map<std::string, Array> inputs;
  std::string attrs_json;
};
Case example_case(const std::string& op, std::uint64_t seed, int shape_index);

// The float64 values of a contiguous array of `dtype` (decoding BF16, fp8 and e8m0 codes exactly).
std::vector<double> decode(const std::string& dtype, const std::vector<std::byte>& bytes);

}  // namespace dsv4py
