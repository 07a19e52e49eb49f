// libFuzzer target for the safetensors reader and the fixture schema (reference/io/). Properties checked on
// every input: parsing either succeeds or throws SafetensorsError / an InputError (any other exception or a
// crash is a finding); a file that parses re-serializes to one that parses to the same tensors (names,
// shapes, bytes) and metadata; fixture validation on a parsed file throws nothing but InputErrors.
// Built with clang (-fsanitize=fuzzer,address) by tools/fuzz_safetensors/CMakeLists.txt.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "reference/io/fixture.hpp"
#include "reference/io/safetensors.hpp"

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_safetensors: property violated: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dsv4;
  using namespace dsv4::io;
  std::vector<std::byte> bytes(size);
  if (size) std::memcpy(bytes.data(), data, size);
  SafetensorsFile f;
  try {
    f = parse_safetensors(std::move(bytes), "fuzz");
  } catch (const SafetensorsError&) {
    return 0;
  }
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const TensorRecord& r : f.tensors) tensors.emplace_back(r.name, f.tensor(r));
  SafetensorsFile g = parse_safetensors(serialize_safetensors(f.metadata, tensors), "fuzz-roundtrip");
  check(g.metadata == f.metadata, "metadata survives a round trip");
  check(g.tensors.size() == f.tensors.size(), "tensor count survives a round trip");
  for (const TensorRecord& r : f.tensors) {
    const TensorRecord* s = g.find(r.name);
    check(s != nullptr, "every tensor survives a round trip");
    check(s->shape == r.shape, "shape survives a round trip");
    check(s->end - s->begin == r.end - r.begin, "byte size survives a round trip");
    check(std::memcmp(g.bytes.data() + g.data_start + s->begin, f.bytes.data() + f.data_start + r.begin,
                      r.end - r.begin) == 0,
          "bytes survive a round trip");
  }
  try {
    Fixture fx = parse_fixture(f);
    (void)fx;
  } catch (const InputError&) {
  }
  return 0;
}
