// Operand values for the MMA wrapper tests (test_port_mma.cpp, test_port_wgmma.cpp): bf16/fp16 codes with their
// decoded values, so that references are computed from exactly what the kernel multiplies.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/tensor/tensor.hpp"

namespace dsv4::test {

// Encodes v to codes (RNE through Tensor::set) and keeps the decoded values.
inline std::vector<std::uint16_t> encode(bool f16, const std::vector<double>& v, std::vector<double>& dec) {
  Tensor x = Tensor::empty(f16 ? DType::F16 : DType::BF16, {static_cast<std::int64_t>(v.size())});
  std::vector<std::uint16_t> codes(v.size());
  dec.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    x.set_linear(static_cast<std::int64_t>(i), v[i]);
    codes[i] = static_cast<std::uint16_t>(x.code_linear(static_cast<std::int64_t>(i)));
    dec[i] = x.get_linear(static_cast<std::int64_t>(i));
  }
  return codes;
}

}  // namespace dsv4::test
