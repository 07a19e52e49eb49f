// Output poisoning: fill an output with a sentinel before the kernel runs, then list the elements
// the kernel never wrote.
//
// Patterns (chosen so that a correct kernel cannot produce them, or documented where it can):
//  - F64/F32/F16/BF16: a *signalling* NaN with an 0xA5 payload (0x7FF4A5A5A5A5A5A5, 0x7FA5A5A5,
//    0x7DA5, 0x7FA5; the quiet bit is clear). Arithmetic never yields a signalling NaN (IEEE 754
//    quietens it), so an element holding this exact code was not computed. The alternate pattern
//    flips the sign bit.
//  - fp8 / e8m0: the format's NaN code (e4m3fn 0xFF, e4m3fnuz/e5m2fnuz 0x80, e5m2 0xFD, e8m0 0xFF);
//    alternate e4m3fn 0x7F, e5m2 0xFF, others the same code. Saturating conversions (the contract's
//    default) never produce NaN from finite inputs.
//  - Integers: bytes 0xA5 (alternate 0x5A). For I32/I64 0xA5A5A5A5.. is a large negative number, never a
//    valid index or -1 padding; for I8/U8 (raw byte outputs such as a KV cache) every byte value is
//    legal, so one pattern is ambiguous: run twice with primary and alternate and use
//    unwritten_in_both().
//
// The NaN rule: where the reference (contract) expects NaN, a NaN poison cannot be told from a
// legitimate NaN for fp8/e8m0 (the poison is the format's NaN code), so those positions are
// reported as `indeterminate`, never as unwritten and never as a pass of the write check. For
// F16/BF16/F32/F64 the signalling payload still identifies an unwritten element even there.
// The byte rule: for U8/I8 outputs, a poison byte where the reference expects that same byte is
// `indeterminate` too (one run cannot decide it; unwritten_in_both can).
#pragma once
#include <cstdint>
#include <vector>

#include "reference/tensor/tensor.hpp"

namespace dsv4::oracle {

enum class PoisonPattern : std::uint8_t { primary, alternate };

// The raw code the pattern writes into every element of a tensor of dtype t.
std::uint64_t poison_code(DType t, PoisonPattern p = PoisonPattern::primary);

// Fills every element of t (a view is fine: only its elements are touched).
void poison(Tensor& t, PoisonPattern p = PoisonPattern::primary);

struct WriteCheck {
  std::vector<std::int64_t> unwritten;      // linear indices still holding the poison code
  std::vector<std::int64_t> indeterminate;  // poison code where the expected value is NaN (see rule above)
};

// Lists elements of `actual` still holding the poison code. `expected` (optional, same shape) lets
// the NaN rule apply; without it every poison code counts as unwritten.
WriteCheck check_written(const Tensor& actual, PoisonPattern p = PoisonPattern::primary,
                         const Tensor* expected = nullptr);

// For outputs whose every code is legal (U8/I8): elements that hold the primary poison after a run
// on primary-poisoned memory and the alternate poison after a run on alternate-poisoned memory.
std::vector<std::int64_t> unwritten_in_both(const Tensor& after_primary, const Tensor& after_alternate);

}  // namespace dsv4::oracle
