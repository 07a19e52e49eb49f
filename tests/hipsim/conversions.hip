// The sim's __hip_bfloat16 and __half conversions against reference/formats' reference encoder (the independent,
// float64 implementation of formats.md; the runtime uses the fast encoder): float -> bf16 in HIP's mode
// bf16-rne:nan=quiet-keep, float -> fp16 round to nearest even with overflow to Inf, and both decodes, bit for bit,
// over special values (zeros, subnormals, ties, the overflow edge, Inf, NaN payloads) and 2^20 random bit patterns.
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "reference/formats/encode.hpp"
#include "reference/formats/format.hpp"

int main() {
  namespace f = dsv4::formats;
  const f::EncodeMode bf16_mode = f::parse_mode("bf16-rne:nan=quiet-keep"), fp16_mode = f::parse_mode("rne-nonsat");
  std::vector<std::uint32_t> bits = {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x3F808000u, 0x3F818000u,
                                     0x3F80FFFFu, 0x7F7FFFFFu, 0x7F7F8000u, 0x7F800000u, 0xFF800000u, 0x7FC00001u,
                                     0x7F800001u, 0xFFA5A5A5u, 0x477FEFFFu, 0x477FF000u, 0x33000000u, 0x33000001u,
                                     0x387FC000u, 0x38800000u, 0x3F802000u, 0x3F803000u};
  std::mt19937_64 rng(20250101);
  std::printf("conversions: seed 20250101, %zu special + 2^20 random float32 bit patterns\n", bits.size());
  for (int i = 0; i < (1 << 20); ++i) bits.push_back(static_cast<std::uint32_t>(rng()));
  int bad = 0;
  for (std::uint32_t b : bits) {
    float x;
    std::memcpy(&x, &b, 4);
    const unsigned bf = __bfloat16_as_ushort(__float2bfloat16(x)), h = __half_as_ushort(__float2half(x));
    const unsigned bf_ref = f::encode_f32_bits_reference(f::Format::bf16, bf16_mode, b);
    const unsigned h_ref = f::encode_f32_bits_reference(f::Format::fp16, fp16_mode, b);
    const float back = __half2float(__ushort_as_half(static_cast<unsigned short>(h_ref)));
    const float back_ref = f::decode_f32(f::Format::fp16, h_ref), bf_back = __bfloat162float(__ushort_as_bfloat16(bf_ref));
    const bool decodes = std::memcmp(&back, &back_ref, 4) == 0 &&
                         (bf_back == float(f::decode(f::Format::bf16, bf_ref)) || bf_back != bf_back);
    if (bf != bf_ref || h != h_ref || !decodes) {
      if (bad++ < 8)
        std::printf("mismatch at float bits 0x%08X: bf16 0x%04X (reference 0x%04X), fp16 0x%04X (reference 0x%04X)\n",
                    b, bf, bf_ref, h, h_ref);
    }
  }
  std::printf("%s: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
