// Internal to amd_kernel_plans.cpp and amd_kernel_plans_more.cpp (not a public interface): the arch profile the
// plans are made for, and the expectation functions of the kernel families whose entries live in the second file
// (amd_kernel_plans_more.cpp, split off to keep each file short). amd_kernel_plans.cpp holds the family table.
#pragma once

#include <string_view>

#include "kernels/port/arch.hpp"
#include "tools/dsv4check/amd_notes.hpp"

namespace dsv4::amd::plans {

// gfx950 -> the gfx950 profile; gfx90a and gfx942 -> the gfx942 profile (gfx90a has gfx942's LDS capacity and wave
// size, and the plans have no gfx90a profile of their own).
const port::ArchProfile& plan_profile(std::string_view arch);

KernelExpectation block_quant_expectation(std::string_view arch);  // per_block_quant_fp8
KernelExpectation inv_rope_expectation(std::string_view arch);     // inv_rope_fp8_quant
KernelExpectation dequant_expectation(std::string_view arch);      // dequant_fp8
KernelExpectation kv_write_expectation(std::string_view arch);     // kv_cache_write
KernelExpectation topk_expectation(std::string_view arch);         // topk
KernelExpectation bsgemm_expectation(std::string_view arch);       // fp8_gemm_blockscaled and fp8_einsum

}  // namespace dsv4::amd::plans
