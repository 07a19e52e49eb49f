// The whole-wave bodies of hipsim/amdgcn_dpp.h, run once per wave by __hipsim_wave_collective (index = lane).
// Rules, AMD CDNA3 ISA guide:
// - "Data Parallel Processing (DPP)" (VOP_DPP encoding, DPP_CTRL enumeration). A row is 16 lanes, a bank 4 lanes of
//   a row. Lane l reads lane src(l): quad_perm q: (l & ~3) + q[2*(l&3)+1 : 2*(l&3)]; row_shl n: l+n, row_shr n: l-n
//   (invalid past the row's ends); row_ror n: rotated right by n inside the row; wave_shl1: l+1 (63 invalid),
//   wave_shr1: l-1 (0 invalid), wave_rol1 / wave_ror1: the same rotated over the wave; row_mirror: the row reversed,
//   row_half_mirror: each 8-lane half reversed; row_bcast15: lane 15 of the previous row; row_bcast31: lane 31 for
//   rows 2-3 (the ISA names no source for row 0, resp. rows 0-1: the sim treats them as invalid sources; kernels
//   mask those rows with row_mask 0xA / 0xC); row_newbcast n (CDNA2+, 0x150 + n): lane n of the row.
//   ROW_MASK bit r / BANK_MASK bit b clear: lanes of row r / bank b are not written (keep old); the masks apply to
//   the write only, never to which lane is read. An invalid source (out of range, or a lane past the end of a
//   partial wave) with BOUND_CTRL 0: not written (keeps old); with BOUND_CTRL 1: writes 0.
// - "LDS instructions" DS_BPERMUTE_B32: lane i reads lane (addr[i] / 4) mod 64, 0 when that lane is inactive;
//   DS_PERMUTE_B32: lane i's data goes to lane (addr[i] / 4) mod 64, lanes nobody writes get 0, and when several
//   lanes target one lane the highest-numbered source wins.
// - DS_SWIZZLE_B32 (CDNA4 ISA guide 12.12; the same modes on CDNA3), on each 32-lane half of the wave (i = the lane's
//   index in its half, g = 0 or 32 the half's first lane), by the 16-bit offset:
//   offset >= 0xE000, FFT mode: mask = offset[4:0], lane reads g + ((rev5(i) >> popcount(mask)) | (i & mask)), rev5
//   reversing the 5 bits of i; offset >= 0xC000, rotate mode: r = offset[9:5], negated when offset[10] is set,
//   mask = offset[4:0], lane reads g + ((i & mask) | ((i + r) & ~mask)) with the sum taken mod 32 (the guide's
//   pseudocode leaves the index width implicit; the mode rotates within the half); offset[15] set (0x8000-0xBFFF),
//   quad-perm mode: lane reads (l & ~3) + offset[2*(l&3)+1 : 2*(l&3)]; offset[15] clear, bitmask mode: and_mask =
//   offset[4:0], or_mask = offset[9:5], xor_mask = offset[14:10], lane reads g + (((i & and) | or) ^ xor). A source
//   lane that does not run gives 0.
// Invariants: immediates (ctrl, masks, bound_ctrl, pattern) are taken from lane 0; an invalid one throws, which the
// sim reports as kernel_exception naming the value.
#include "hipsim/abi_dpp.h"

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

std::string hex(int v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%X", static_cast<unsigned>(v));
  return b;
}

// The lane lane l reads under DPP control c, or -1 / 64 when the source is out of range.
int dpp_source(int c, int l) {
  const int row = l & ~15, pos = l & 15;
  if (c <= 0xff) return (l & ~3) + ((c >> (2 * (l & 3))) & 3);
  if (c >= 0x101 && c <= 0x10f) return pos + (c - 0x100) < 16 ? l + (c - 0x100) : -1;
  if (c >= 0x111 && c <= 0x11f) return pos - (c - 0x110) >= 0 ? l - (c - 0x110) : -1;
  if (c >= 0x121 && c <= 0x12f) return row + ((pos - (c - 0x120)) & 15);
  switch (c) {
    case 0x130: return l + 1;  // 64: out of range
    case 0x134: return (l + 1) & 63;  // over the 64 lanes of the hardware wave, not the lanes that run
    case 0x138: return l - 1;
    case 0x13c: return (l + 63) & 63;
    case 0x140: return row + (15 - pos);
    case 0x141: return (l & ~7) + (7 - (l & 7));
    case 0x142: return row >= 16 ? row - 1 : -1;
    case 0x143: return l >= 32 ? 31 : -1;
    default: break;
  }
  return row + (c - 0x150);  // row_newbcast (validity checked by the caller)
}

// The lane lane l reads under ds_swizzle offset p (0..0xFFFF; the modes in the header comment).
int swizzle_source(int p, int l) {
  const int g = l & 32, i = l & 31;
  if (p >= 0xE000) {
    const int mask = p & 31;
    int rev = 0;
    for (int b = 0; b < 5; ++b) rev |= ((i >> b) & 1) << (4 - b);
    return g + ((rev >> __builtin_popcount(static_cast<unsigned>(mask))) | (i & mask));
  }
  if (p >= 0xC000) {
    const int mask = p & 31, r = (p >> 10) & 1 ? -((p >> 5) & 31) : (p >> 5) & 31;
    return g + (((i & mask) | ((i + r) & ~mask)) & 31);
  }
  if (p & 0x8000) return (l & ~3) + ((p >> (2 * (l & 3))) & 3);
  const int and_mask = p & 31, or_mask = (p >> 5) & 31, xor_mask = (p >> 10) & 31;
  return g + (((i & and_mask) | or_mask) ^ xor_mask);
}

}  // namespace

extern "C" void __hipsim_dpp(const void*, int lanes, const void* const* in, void* const* out) {
  const auto& o0 = *static_cast<const __hipsim_dpp_operands*>(in[0]);
  if (!__hipsim_dpp_ctrl_valid(o0.ctrl))
    throw std::runtime_error("invalid dpp_ctrl " + hex(o0.ctrl) +
                             ": not a gfx9 DPP control (hipsim/include/hipsim/amdgcn_dpp.h lists them)");
  for (int l = 0; l < lanes; ++l) {
    const auto& o = *static_cast<const __hipsim_dpp_operands*>(in[l]);
    const int row = l >> 4, bank = (l >> 2) & 3;
    std::uint64_t r = o.old;
    if (((o0.row_mask >> row) & 1) && ((o0.bank_mask >> bank) & 1)) {
      const int s = dpp_source(o0.ctrl, l);
      if (s >= 0 && s < lanes) r = static_cast<const __hipsim_dpp_operands*>(in[s])->src;
      else if (o0.bound_ctrl) r = 0;
    }
    *static_cast<std::uint64_t*>(out[l]) = r;
  }
}

extern "C" void __hipsim_xbar(const void* user, int lanes, const void* const* in, void* const* out) {
  const int op = static_cast<int>(reinterpret_cast<std::intptr_t>(user));
  auto at = [&](int l) -> const __hipsim_xbar_operands& { return *static_cast<const __hipsim_xbar_operands*>(in[l]); };
  auto res = [&](int l) -> int& { return *static_cast<int*>(out[l]); };
  auto lane_of = [](int addr) { return static_cast<int>((static_cast<std::uint32_t>(addr) >> 2) & 63u); };
  if (op == 0) {
    for (int l = 0; l < lanes; ++l) {
      const int s = lane_of(at(l).a);
      res(l) = s < lanes ? at(s).data : 0;
    }
    return;
  }
  if (op == 1) {
    for (int l = 0; l < lanes; ++l) res(l) = 0;
    for (int l = 0; l < lanes; ++l) {  // ascending, so the highest-numbered source is the last write
      const int d = lane_of(at(l).a);
      if (d < lanes) res(d) = at(l).data;
    }
    return;
  }
  const int p = at(0).a;
  if (!__hipsim_swizzle_valid(p))
    throw std::runtime_error("ds_swizzle pattern " + hex(p) + " outside the 16-bit offset field (0 to 0xFFFF)");
  for (int l = 0; l < lanes; ++l) {
    const int s = swizzle_source(p, l);
    res(l) = s < lanes ? at(s).data : 0;
  }
}
