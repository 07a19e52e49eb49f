// The whole-wave body of the MFMA builtins (hipsim/amdgcn_mfma.h): D = A*B + C for one wave of 64 lanes, run once
// per wave by __hipsim_wave_collective. Operands are decoded bit-exactly by reference/formats.
// Layout (AMD CDNA3 ISA guide, "Matrix Arithmetic Instructions", dense MFMA register layout; the gfx950-only forms
// follow it, as IREE's compiler lays them out; not checked against the CDNA4 guide), for an MxNxK instruction with
// `blocks` blocks, P = K*M*blocks/64 values per lane and L = 64/blocks lanes per block:
//   A[i][k] of block b: lane i + M*(k/P) + L*b, value k%P   (value e in bits [w*e+w-1 : w*e] of the registers)
//   B[k][j] of block b: lane j + N*(k/P) + L*b, value k%P
//   C/D[i][j] of block b: with G = 64/(N*blocks) lane groups, lane j + N*((i/4)%G) + L*b, register 4*(i/(4G)) + i%4.
// Modifiers (multi-block forms): CBSZ/ABID - block b takes A from block (b with its low CBSZ bits replaced by ABID);
// BLGP - lane l takes B from lane 1: l%32, 2: 32+l%32, 3: (l+16)%64, 4-7: 16*(BLGP-4) + l%16.
// Scaled form (V_MFMA_SCALE, gfx950): every A value is first multiplied by 2^(SA-127), SA the e8m0 byte opsel_a
// of the scale VGPR of the lane that holds it (one per row and 32 k), B likewise; exact unless it leaves fp32's range.
// Arithmetic: every product is exact; D[i][j] = C[i][j], then for k = 0..K-1 in ascending order
// D = fmaf(A[i][k], B[k][j], D): one fp32 rounding per step (IEEE, denormals kept). The hardware's order and internal
// width are not documented; op error models allow any order.
#include "hipsim/abi_mfma.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "reference/formats/format.hpp"

namespace {
namespace fmt = dsv4::formats;

int width_bits(int format) {
  switch (format) {
    case __hipsim_mfma_f16:
    case __hipsim_mfma_bf16: return 16;
    case __hipsim_mfma_fp4: return 4;
    default: return 8;
  }
}

// Value e of a lane's operand registers: bits [w*e+w-1 : w*e] (little-endian bytes, low nibble first for fp4).
float decode(int format, const unsigned char* regs, int e) {
  const int w = width_bits(format);
  std::uint32_t code = 0;
  std::memcpy(&code, regs + e * w / 8, std::size_t(w < 8 ? 1 : w / 8));
  if (w == 4) code = (code >> (4 * (e % 2))) & 0xFu;
  switch (format) {
    case __hipsim_mfma_f16: return fmt::decode_f32(fmt::Format::fp16, code);
    case __hipsim_mfma_bf16: return fmt::decode_f32(fmt::Format::bf16, code);
    case __hipsim_mfma_fp8_ocp: return fmt::decode_f32(fmt::Format::e4m3fn, code);
    case __hipsim_mfma_bf8_ocp: return fmt::decode_f32(fmt::Format::e5m2, code);
    case __hipsim_mfma_fp8_fnuz: return fmt::decode_f32(fmt::Format::e4m3fnuz, code);
    case __hipsim_mfma_bf8_fnuz: return fmt::decode_f32(fmt::Format::e5m2fnuz, code);
    case __hipsim_mfma_fp4: return fmt::decode_f32(fmt::Format::e2m1fn, code);
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
}  // namespace

extern "C" void __hipsim_mfma(const void*, int lanes, const void* const* in, void* const* out) {
  constexpr int kWave = 64;
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
  static thread_local float a[kWave][32], b[kWave][32];  // decoded (and scaled) operands, off the fiber stack
  for (int l = 0; l < kWave; ++l) {
    const auto& o = *static_cast<const __hipsim_mfma_in*>(in[l]);
    const double sa = i0.scaled ? scale_of(o.scale_a, i0.opsel_a) : 1;
    const double sb = i0.scaled ? scale_of(o.scale_b, i0.opsel_b) : 1;
    for (int e = 0; e < P; ++e) {
      a[l][e] = float(decode(i0.a_format, o.a, e) * sa);
      b[l][e] = float(decode(i0.b_format, o.b, e) * sb);
    }
  }
  for (int blk = 0; blk < blocks; ++blk) {
    const int a_blk = ((blk >> cbsz) << cbsz) + abid;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        const int dl = j + N * ((i / 4) % G) + L * blk, dr = 4 * (i / (4 * G)) + i % 4;
        float acc = static_cast<const __hipsim_mfma_in*>(in[dl])->c[dr];
        for (int k = 0; k < K; ++k) {
          const int al = i + M * (k / P) + L * a_blk;
          const int bl = blgp_source(blgp, j + N * (k / P) + L * blk);
          acc = std::fmaf(a[al][k % P], b[bl][k % P], acc);
        }
        static_cast<float*>(out[dl])[dr] = acc;
      }
  }
}
