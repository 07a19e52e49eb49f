// Strict reader and writer of the safetensors container format (the format written by Python's
// `safetensors.torch.save_file`):
//
//   [8 bytes: N, unsigned little-endian] [N bytes: JSON header, UTF-8, may end in spaces] [data buffer]
//
// The header is a JSON object: an optional "__metadata__" object mapping strings to strings, and one entry
// per tensor, {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, where [begin, end) are byte
// offsets relative to the start of the data buffer. The reader enforces every rule of the reference
// implementation: header length within bounds and within the file, valid JSON object, known dtype, shape of
// non-negative integers, dtype size x element count == end - begin, offsets inside the buffer, tensors
// neither overlapping nor leaving gaps, buffer fully covered. Every violation throws SafetensorsError naming
// the file, the tensor or key, and the rule; no input makes the reader crash (fuzzed by
// tools/fuzz_safetensors/).
//
// Dtypes on disk: F64 F32 F16 BF16 I64 I32 I16 I8 U8 F8_E4M3 F8_E5M2 (and F8_E8M0, written by recent
// safetensors for torch.float8_e8m0fnu). FNUZ and E8M0 tensors are written as U8: the writer reports the
// storage dtype so a caller (the fixture layer) can record the real format.
// Data are little-endian; this code assumes a little-endian host (static_assert in the .cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"  // InputError
#include "reference/tensor/tensor.hpp"

namespace dsv4::io {

// Any violation of the container format. An InputError, so tools map it to exit code 2.
struct SafetensorsError : InputError {
  using InputError::InputError;
};

// Upper bound of the JSON header length (the reference implementation's limit).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

struct TensorRecord {
  std::string name;
  std::string dtype_name;  // as written in the file, e.g. "F8_E4M3"
  DType dtype;             // the in-memory dtype (F8_E4M3 -> F8_E4M3FN)
  Shape shape;
  std::uint64_t begin = 0, end = 0;  // [begin, end) relative to the data buffer
};

class SafetensorsFile {
 public:
  std::string source;                           // file name (or "<memory>") for messages
  std::map<std::string, std::string> metadata;  // "__metadata__"
  std::vector<TensorRecord> tensors;            // sorted by data offset

  const TensorRecord* find(const std::string& name) const;
  // A contiguous copy of the tensor's bytes, typed `as` (default: the record's dtype). `as` must have the
  // same element size as the stored dtype.
  Tensor tensor(const TensorRecord& r) const { return tensor(r, r.dtype); }
  Tensor tensor(const TensorRecord& r, DType as) const;

  std::vector<std::byte> bytes;  // the whole file
  std::uint64_t data_start = 0;  // 8 + N
};

// Parses and validates a whole file image. `source` names it in error messages.
SafetensorsFile parse_safetensors(std::vector<std::byte> bytes, const std::string& source = "<memory>");
SafetensorsFile read_safetensors(const std::filesystem::path& path);

// The dtype string a tensor of dtype t is stored under ("F8_E4M3" for F8_E4M3FN; "U8" for FNUZ and E8M0).
std::string storage_dtype_name(DType t);
// True when t is stored under a different, byte-typed dtype (FNUZ, E8M0) whose format must be recorded.
bool stored_as_u8(DType t);

// Serializes tensors (any strides; written contiguous, in the given order) and metadata. The header is
// padded with spaces to a multiple of 8 bytes, as the Python library does. Tensor names must be unique
// and non-empty and must not be "__metadata__".
std::vector<std::byte> serialize_safetensors(const std::map<std::string, std::string>& metadata,
                                             const std::vector<std::pair<std::string, Tensor>>& tensors);
void write_safetensors(const std::filesystem::path& path, const std::map<std::string, std::string>& metadata,
                       const std::vector<std::pair<std::string, Tensor>>& tensors);

// Raw file helpers (throw SafetensorsError naming the path on I/O failure).
std::vector<std::byte> read_file_bytes(const std::filesystem::path& path);
void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace dsv4::io
