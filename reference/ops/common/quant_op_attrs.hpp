// Shared attribute handling and output writing of the FP8 quantization ops (per_token_group_quant_fp8,
// per_block_quant_fp8, inv_rope_fp8_quant; ops.md §7): scale_recipe / fp8_dtype / fp8_max /
// scale_layout attrs resolved against formats/recipes.hpp, with InputError naming the attribute.
// The recipes compute in fp32 exactly like the source kernels (formats.md §5), so codes and scale
// bytes are bit-exact expectations.
#pragma once
#include <string>
#include <vector>

#include "reference/formats/recipes.hpp"
#include "reference/ops/common/quant_scale_layout.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::quant {

struct QuantAttrs {
  formats::Recipe recipe;
  formats::Format fp8;          // e4m3fn or e4m3fnuz
  DType fp8_dtype;              // the matching tensor dtype
  formats::RecipeOptions opt;   // elem_max = fp8_max when given
  ScaleLayout layout;
  std::int64_t group_size;
};

// The fp8 recipes admitted by the quant ops (formats.md §5, fp4 recipes excluded).
std::vector<std::string> fp8_recipe_names();

// Reads and checks scale_recipe, fp8_dtype, fp8_max (optional: null = recipe default), scale_layout,
// group_size from c.attrs; throws InputError naming op and attribute.
QuantAttrs read_quant_attrs(const std::string& op, const OpCase& c);

// The common AttrSpecs (defaults given per op).
std::vector<AttrSpec> quant_attr_specs(const std::string& default_recipe, std::vector<std::string> layouts,
                                       const std::string& default_layout);

// All elements of a 2-D floating tensor as float (exact for bf16/fp16/fp32 inputs).
std::vector<float> to_float_rows(const Tensor& x2d);

// UE8M0 byte of block i of a quantize_2d result (the recipe's stored byte, or the exponent of its
// power-of-two fp32 scale); throws InputError when the recipe's scale is not a power of two.
std::uint8_t scale_byte(const std::string& op, const formats::Quantized2D& q, std::size_t i);

}  // namespace dsv4::quant
