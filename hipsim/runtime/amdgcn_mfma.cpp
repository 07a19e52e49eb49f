// The whole-wave body of the MFMA builtins (hipsim/amdgcn_mfma.h): D = A*B + C for one wave of 64 lanes, run once
// per wave by __hipsim_wave_collective. Operands are decoded bit-exactly by reference/formats.
// Layout (AMD CDNA3 ISA guide, "Matrix Arithmetic Instructions"; CDNA4 ISA guide 7.1.4, the same rule), for an
// MxNxK instruction with `blocks` blocks, P = K*M*blocks/64 values (items) per lane and L = 64/blocks lanes per block:
//   A[i][k] of block b: lane i + M*(k/P) + L*b, item k%P
//   B[k][j] of block b: lane j + N*(k/P) + L*b, item k%P
//   C/D[i][j] of block b: with G = 64/(N*blocks) lane groups, lane j + N*((i/4)%G) + L*b, register 4*(i/(4G)) + i%4.
// Items (CDNA4 ISA guide 7.1.4): the lane's operand registers read as one little-endian bit string, item e in bits
// [w*e+w-1 : w*e]; so fp4 item 0 is the low nibble of byte 0, and the 6-bit items of fp6/bf6 run across register
// boundaries (item 5: bits 35:30, i.e. v0[31:30] and v1[3:0]).
// Exception (CDNA4 ISA guide 7.1.5.1, the F8F6F4 FP8 tables): the 8-bit operands of the f8f6f4 instructions hold K
// as two halves, registers 0-3 the first K/2 and registers 4-7 the second, each half laid out by the rule above with
// P/2 items per lane: A[i][k], h = k/(K/2), k' = k%(K/2): lane i + M*(k'/(P/2)), item (P/2)*h + k'%(P/2). Their fp6
// and fp4 operands follow the rule (32 consecutive k per lane).
// Modifiers (multi-block forms): CBSZ/ABID - block b takes A from block (b with its low CBSZ bits replaced by ABID);
// BLGP - lane l takes B from lane 1: l%32, 2: 32+l%32, 3: (l+16)%64, 4-7: 16*(BLGP-4) + l%16 (CDNA4 guide table 29).
// The f8f6f4 instructions use CBSZ/BLGP as the A/B formats instead (7.1.6.2, 7.1.6.5).
// Scaled forms (V_MFMA_SCALE, CDNA4 ISA guide 7.2): one e8m0 scale per row of A (column of B) and 32 consecutive k:
// the scale of A[i][k] is byte opsel_a of the scale VGPR of lane i + M*(k/32) (7.2.1's scale layout: lane 16 holds
// row 0's k = 32..63 of a 16x16x128), B[k][j]'s likewise from lane j + N*(k/32); that is the data's lane for fp4 and
// fp6, not for fp8 (above). The scales multiply the products: a*b*2^(SA-127)*2^(SB-127) is formed exactly (in
// double), so a scale that would push one operand out of fp32's range alone does not overflow; 0xFF is NaN.
// Arithmetic: every product is exact; D[i][j] = C[i][j], then for k = 0..K-1 in ascending order D = D + product with
// one fp32 rounding per step (IEEE, denormals kept). The hardware's order and internal width are not documented; op
// error models allow any order. The i8 forms: signed 8-bit items, D = C + sum of the exact products in int32,
// wrapping modulo 2^32 (CDNA4 ISA guide 7.1.2 without clamp, 7.4), which no order changes.
#include "hipsim/abi_mfma.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "reference/formats/format.hpp"

namespace {
namespace fmt = dsv4::formats;
constexpr int kWave = 64, kMaxK = 128;

int width_bits(int format) {
  switch (format) {
    case __hipsim_mfma_f16:
    case __hipsim_mfma_bf16: return 16;
    case __hipsim_mfma_fp4: return 4;
    case __hipsim_mfma_fp6:
    case __hipsim_mfma_bf6: return 6;
    default: return 8;
  }
}

// Item e (w bits wide) of a lane's operand registers (regs: 32 bytes, little-endian).
std::uint32_t item_code(const unsigned char* regs, int w, int e) {
  const int bit = w * e, first = bit / 8, last = (bit + w - 1) / 8;
  std::uint32_t v = 0;
  for (int b = last; b >= first; --b) v = (v << 8) | regs[b];
  return (v >> (bit % 8)) & ((1u << w) - 1u);
}

float decode(int format, const unsigned char* regs, int e) {
  const std::uint32_t code = item_code(regs, width_bits(format), e);
  switch (format) {
    case __hipsim_mfma_f16: return fmt::decode_f32(fmt::Format::fp16, code);
    case __hipsim_mfma_bf16: return fmt::decode_f32(fmt::Format::bf16, code);
    case __hipsim_mfma_fp8_ocp: return fmt::decode_f32(fmt::Format::e4m3fn, code);
    case __hipsim_mfma_bf8_ocp: return fmt::decode_f32(fmt::Format::e5m2, code);
    case __hipsim_mfma_fp8_fnuz: return fmt::decode_f32(fmt::Format::e4m3fnuz, code);
    case __hipsim_mfma_bf8_fnuz: return fmt::decode_f32(fmt::Format::e5m2fnuz, code);
    case __hipsim_mfma_fp4: return fmt::decode_f32(fmt::Format::e2m1fn, code);
    case __hipsim_mfma_fp6: return fmt::decode_f32(fmt::Format::e2m3fn, code);
    case __hipsim_mfma_bf6: return fmt::decode_f32(fmt::Format::e3m2fn, code);
    case __hipsim_mfma_i8: return float(std::int8_t(code));  // exact
    default: throw std::logic_error("hipsim: unknown MFMA operand format");
  }
}

// The e8m0 scale byte `opsel` of a scale VGPR, as a factor (2^(byte-127); 0xFF is NaN).
double scale_of(unsigned vgpr, int opsel) { return fmt::decode(fmt::Format::e8m0fnu, (vgpr >> (8 * opsel)) & 0xFFu); }

int blgp_source(int blgp, int lane) {
  switch (blgp) {
    case 0: return lane;
    case 1: return lane % 32;
    case 2: return 32 + lane % 32;
    case 3: return (lane + 16) % 64;
    default: return 16 * (blgp - 4) + lane % 16;
  }
}

// Where k of an operand lives, for row (column) 0 of block 0: lane offset and item (see the header comment).
struct KPlace {
  int lane[kMaxK], item[kMaxK];
};
KPlace k_places(int rows, int K, int P, bool f8f6f4_8bit) {
  KPlace p{};
  for (int k = 0; k < K; ++k) {
    if (f8f6f4_8bit) {
      const int half = k / (K / 2), kk = k % (K / 2), ph = P / 2;
      p.lane[k] = rows * (kk / ph), p.item[k] = ph * half + kk % ph;
    } else {
      p.lane[k] = rows * (k / P), p.item[k] = k % P;
    }
  }
  return p;
}

// acc + p with one fp32 rounding: p (a scaled product, <= 8 significant bits) is exact in double.
float add_rounded(float acc, double p) {
  const float pf = float(p);
  if (double(pf) == p) return acc + pf;  // p exact in fp32: one correctly rounded fp32 addition
  return float(double(acc) + p);          // p beyond fp32's range or granularity: the sum in double, then rounded
}
}  // namespace

extern "C" void __hipsim_mfma(const void*, int lanes, const void* const* in, void* const* out) {
  const auto& i0 = *static_cast<const __hipsim_mfma_in*>(in[0]);
  const std::string name = std::string("__builtin_amdgcn_mfma_") + i0.name;
  if (lanes != kWave)
    throw std::runtime_error(name + " in a wave of " + std::to_string(lanes) +
                             " lanes: an MFMA reads the registers of all 64 lanes (launch whole waves)");
  const int M = i0.m, N = i0.n, K = i0.k, blocks = i0.blocks;
  const int P = K * M * blocks / kWave, L = kWave / blocks, G = kWave / (N * blocks);
  const int cbsz = i0.cbsz, abid = i0.abid, blgp = i0.blgp;
  const bool mods_ok =
      blocks == 1 ? (cbsz == 0 && abid == 0 && blgp == 0)
                  : (cbsz >= 0 && cbsz <= 4 && abid >= 0 && abid < (1 << cbsz) && blgp >= 0 && blgp <= 7);
  if (!mods_ok)
    throw std::runtime_error(name + ": cbsz " + std::to_string(cbsz) + ", abid " + std::to_string(abid) + ", blgp " +
                             std::to_string(blgp) + " is not a valid modifier set for this instruction");
  if (K > kMaxK || P > 32) throw std::logic_error(name + ": shape beyond the emulation's operand buffers");
  static thread_local float a[kWave][32], b[kWave][32];  // decoded operands, off the fiber stack
  static thread_local double sa[kWave], sb[kWave];      // scaled forms: each lane's scale factors
  for (int l = 0; l < kWave; ++l) {
    const auto& o = *static_cast<const __hipsim_mfma_in*>(in[l]);
    sa[l] = i0.scaled ? scale_of(o.scale_a, i0.opsel_a) : 1;
    sb[l] = i0.scaled ? scale_of(o.scale_b, i0.opsel_b) : 1;
    for (int e = 0; e < P; ++e) {
      a[l][e] = decode(i0.a_format, o.a, e);
      b[l][e] = decode(i0.b_format, o.b, e);
    }
  }
  const KPlace pa = k_places(M, K, P, i0.f8f6f4 && width_bits(i0.a_format) == 8);
  const KPlace pb = k_places(N, K, P, i0.f8f6f4 && width_bits(i0.b_format) == 8);
  // Every D[i][j] of every block once: f(D's lane, register, i, j, the block, the block A comes from).
  auto each_d = [&](auto f) {
    for (int blk = 0; blk < blocks; ++blk) {
      const int a_blk = ((blk >> cbsz) << cbsz) + abid;
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) f(j + N * ((i / 4) % G) + L * blk, 4 * (i / (4 * G)) + i % 4, i, j, blk, a_blk);
    }
  };
  auto c_of = [&](int dl, int dr) { return &static_cast<const __hipsim_mfma_in*>(in[dl])->c[dr]; };
  auto d_of = [&](int dl, int dr) { return &static_cast<float*>(out[dl])[dr]; };
  if (i0.a_format == __hipsim_mfma_i8) {
    each_d([&](int dl, int dr, int i, int j, int blk, int a_blk) {
      std::uint32_t acc;  // int32 bits, copied as bits (never through a float value)
      std::memcpy(&acc, c_of(dl, dr), sizeof acc);
      for (int k = 0; k < K; ++k) {
        const int al = i + pa.lane[k] + L * a_blk, bl = blgp_source(blgp, j + pb.lane[k] + L * blk);
        acc += std::uint32_t(std::int32_t(a[al][pa.item[k]]) * std::int32_t(b[bl][pb.item[k]]));
      }
      std::memcpy(d_of(dl, dr), &acc, sizeof acc);
    });
  } else if (i0.scaled) {
    each_d([&](int dl, int dr, int i, int j, int, int) {
      float acc = *c_of(dl, dr);
      for (int k = 0; k < K; ++k)
        acc = add_rounded(acc, double(a[i + pa.lane[k]][pa.item[k]]) * double(b[j + pb.lane[k]][pb.item[k]]) *
                                   sa[i + M * (k / 32)] * sb[j + N * (k / 32)]);
      *d_of(dl, dr) = acc;
    });
  } else {
    each_d([&](int dl, int dr, int i, int j, int blk, int a_blk) {
      float acc = *c_of(dl, dr);
      for (int k = 0; k < K; ++k) {
        const int al = i + pa.lane[k] + L * a_blk, bl = blgp_source(blgp, j + pb.lane[k] + L * blk);
        acc = std::fmaf(a[al][pa.item[k]], b[bl][pb.item[k]], acc);
      }
      *d_of(dl, dr) = acc;
    });
  }
}
