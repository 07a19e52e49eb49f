// The compiler-rt routine clang-22's x86 backend calls for float -> __bf16 (it moves <N x bfloat> vectors, such as
// MFMA operands, through float registers), which Debian 12's libgcc lacks. Weak, so every TU may carry it and the
// link keeps one. Rule: round to nearest even; a NaN stays NaN (quiet bit set), as reference/formats' bf16 RNE.
#pragma once

extern "C" __attribute__((weak)) __bf16 __truncsfbf2(float f) {
  unsigned u;
  __builtin_memcpy(&u, &f, 4);
  const unsigned short h = (u & 0x7FFFFFFFu) > 0x7F800000u
                               ? static_cast<unsigned short>((u >> 16) | 0x40u)
                               : static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  __bf16 r;
  __builtin_memcpy(&r, &h, 2);
  return r;
}
