// Test support for the sparse_mla_decode kernel tests: the runner path with explicit tuning (split count, head group,
// key tile) judged against the float64 reference under the op's default oracle policy, and hand-made cases: a
// MODEL1 cache whose UE8M0 scale bytes are chosen per tile (one valid row per query, so out = that V row exactly),
// poisoning of one slot's bytes, and garbage index values past topk_length.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/sparse_mla_decode/smla_plan.hpp"
#include "tests/kernels/kernel_case.hpp"

namespace dsv4::test::smla {

inline constexpr const char* kOp = "sparse_mla_decode";

// As kern::run_and_judge, with the plan's tuning forced (o.variant and o.repeats through RunOptions).
kern::Checked run_tuned(OpCase c, const kernels::smla::SmlaOptions& tuning, const std::string& variant = "default",
                        int repeats = 1);

// MODEL1 case: b x s_q queries, h_q heads, topk 4 with one valid slot per query (the others -1); query i's row has
// scale bytes bytes[7 i .. 7 i + 6] and random fp8 codes of `fp8` (NaN codes excluded, magnitudes limited so that
// code x 2^(byte - 127) stays finite in bf16); q is 0 on the NoPE part and random on the RoPE part (finite logits).
OpCase scale_byte_case(std::mt19937_64& rng, const std::vector<int>& bytes, std::int64_t b, std::int64_t s_q,
                       const std::string& fp8);

// Expected out row of query i in scale_byte_case, as bf16 codes (NaN rows: every element NaN code 0x7fc0):
// decode(fp8 code) x 2^(byte - 127) rounded once to bf16 by formats::encode_ieee_rne, RoPE bf16 as written.
std::vector<std::uint16_t> scale_byte_expected_row(const OpCase& c, std::int64_t query);

// Writes 0xFF (NaN in every field) over every byte of `slot` of cache input `arg`.
void poison_slot(OpCase& c, const char* arg, std::int64_t slot);

// Number of slots of a cache input.
std::int64_t num_slots(const OpCase& c, const char* arg);

}  // namespace dsv4::test::smla
