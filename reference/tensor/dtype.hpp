// Element types of tensors. Names match safetensors dtype strings where safetensors has one
// (F64, F32, F16, BF16, I64, I32, I16, I8, U8, F8_E4M3, F8_E5M2); FNUZ and E8M0 tensors are
// distinct dtypes here and are stored as U8 in fixture files, with their format named in attrs.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "reference/formats/format.hpp"

namespace dsv4 {

enum class DType : std::uint8_t {
  F64, F32, F16, BF16, I64, I32, I16, I8, U8,
  F8_E4M3FN, F8_E4M3FNUZ, F8_E5M2, F8_E5M2FNUZ, F8_E8M0,
};

std::size_t element_size(DType t);
std::string_view dtype_name(DType t);             // "F32", "F8_E4M3FN", ...
std::optional<DType> parse_dtype(std::string_view);  // accepts dtype_name() spellings
bool is_floating(DType t);                        // any real-valued type (incl. fp8/e8m0)
bool is_integer(DType t);
// The number format behind a low-precision floating dtype (F16, BF16, F8_*); nullopt otherwise.
std::optional<formats::Format> format_of(DType t);

}  // namespace dsv4
