// Host helpers shared by the kernel-registry runners of the FP8 quantization kernels (per_token_group_quant_fp8,
// per_block_quant_fp8, inv_rope_fp8_quant): the input element type, the recipe attrs every quant op carries, and
// the fp32 / packed-int32 scale buffer of a row_major / mn_major / packed_ue8m0 layout.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/kernel_registry.hpp"
#include "kernels/quant_fp8/quant_plan.hpp"
#include "kernels/runner_support.hpp"

namespace dsv4::kernels::quant {

// BF16 / F16 / F32 of input `arg`; anything else is an InputError "<op>: argument '<arg>' must be BF16, F16 or F32".
InputType input_type_of(const Tensor& t, const std::string& op, const char* arg);

// The op attrs scale_recipe, fp8_dtype, fp8_max (null: the recipe's), scale_layout and group_size into opt.
template <class Options>
void read_recipe_attrs(const OpCase& c, Options& opt) {
  opt.recipe = c.attrs.at("scale_recipe").get<std::string>();
  opt.fp8 = c.attrs.at("fp8_dtype").get<std::string>() == "e4m3fnuz" ? Fp8::e4m3fnuz : Fp8::e4m3fn;
  if (!c.attrs.at("fp8_max").is_null()) opt.fp8_max = c.attrs.at("fp8_max").get<double>();
  const std::string layout = c.attrs.at("scale_layout").get<std::string>();
  opt.layout = layout == "mn_major" ? ScaleLayout::mn_major
               : layout == "packed_ue8m0" ? ScaleLayout::packed_ue8m0 : ScaleLayout::row_major;
  opt.group_size = c.attrs.at("group_size").get<std::int64_t>();
}

// The [rows, cols] scale tensor s on the device in `bytes` bytes: element (r, c) at word r·ld + c (row_major) or
// c·ld + r (mn_major, packed_ue8m0); the padding rows r >= rows start as 0xA5 bytes.
WordLayout scale_words(const Tensor& s, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t bytes,
                       ScaleLayout layout);

}  // namespace dsv4::kernels::quant
