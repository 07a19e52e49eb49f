// __builtin_amdgcn_update_dpp / mov_dpp, every gfx9 DPP control (all 256 quad_perm, row_shl / row_shr / row_ror
// 1-15, wave_shl1 / rol1 / shr1 / ror1, row_mirror, row_half_mirror, row_bcast15 / 31, row_newbcast 0-15) under
// several row_mask / bank_mask / bound_ctrl settings, on a 64-lane wave and a 48-lane one, compared with tables built
// here from the CDNA3 ISA rules ("Data Parallel Processing"), written out independently of the emulation: the lane
// each lane reads (or none: out of range, or a lane that does not run); a lane whose row or bank is masked keeps old;
// an invalid source keeps old with bound_ctrl 0 and reads 0 with bound_ctrl 1. mov_dpp's unwritten lanes hold the
// sim's poison (all bits set). Also float, unsigned, double, long, short and _Float16 values (bit-exact), literal spot
// checks, and clang-22's int-only readfirstlane / readlane (a float argument is converted by value).
// Rule: lane values and old values are non-zero and distinct, so a wrong source or a wrong fallback shows.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

constexpr int kLanes = 64;

struct Case { int ctrl, row_mask, bank_mask, bound; };

__global__ void dpp_sweep(const Case* cases, int n, int* upd, int* mov) {
  const int l = threadIdx.x;
  const int v = 0x1000 + 37 * l + 1, old = 0x7000 + 11 * l + 3;
  for (int i = 0; i < n; ++i) {
    const Case c = cases[i];
    upd[i * kLanes + l] = __builtin_amdgcn_update_dpp(old, v, c.ctrl, c.row_mask, c.bank_mask, c.bound != 0);
    mov[i * kLanes + l] = __builtin_amdgcn_mov_dpp(v, c.ctrl, c.row_mask, c.bank_mask, c.bound != 0);
  }
}

// Other value types, one control each (row_shr:3 with bound_ctrl 0 and row_mask 0xB; quad_perm [3,2,1,0]).
struct Typed { float f; unsigned u; double d; long long q; short s; _Float16 h; };
__global__ void dpp_types(Typed* out) {
  const int l = threadIdx.x;
  Typed t{1.5f + 0.25f * l, 0xF0000000u + 3u * l, -2.0 - 0.5 * l, 0x123456789ALL * (l + 1), short(-300 - l),
          _Float16(0.5f + l)};
  Typed old{-7.0f - l, 0xABCD0000u + l, 9.0 + l, -5LL * (l + 1), short(1000 + l), _Float16(-1.0f - l)};
  Typed r;
  r.f = __builtin_amdgcn_update_dpp(old.f, t.f, 0x113, 0xB, 0xF, false);
  r.u = __builtin_amdgcn_update_dpp(old.u, t.u, 0x113, 0xB, 0xF, false);
  r.d = __builtin_amdgcn_update_dpp(old.d, t.d, 0x113, 0xB, 0xF, false);
  r.q = __builtin_amdgcn_update_dpp(old.q, t.q, 0x1B, 0xF, 0xF, false);
  r.s = __builtin_amdgcn_mov_dpp(t.s, 0x1B, 0xF, 0xF, true);
  r.h = __builtin_amdgcn_mov_dpp(t.h, 0x1B, 0xF, 0xF, true);
  out[l] = r;
}

// clang-22 declares readfirstlane / readlane as int builtins: a float is converted to int by value.
static_assert(std::is_same_v<decltype(__builtin_amdgcn_readlane(1.5f, 0)), int>);
__global__ void read_float(int* out) {
  const float x = 2.75f + float(threadIdx.x);
  out[threadIdx.x] = __builtin_amdgcn_readlane(x, 5) + 100 * __builtin_amdgcn_readfirstlane(x);
}

// The ISA's lane map, written per family from its description. -1: no source (out of range).
int isa_source(int ctrl, int lane) {
  const int r = lane / 16, i = lane % 16;
  if (ctrl < 256) {
    int sel[4];
    for (int k = 0, c = ctrl; k < 4; ++k, c /= 4) sel[k] = c % 4;  // lane k of a quad takes quad lane sel[k]
    return 4 * (lane / 4) + sel[lane % 4];
  }
  if (ctrl > 0x100 && ctrl < 0x110) { const int n = ctrl - 0x100; return i + n <= 15 ? 16 * r + i + n : -1; }
  if (ctrl > 0x110 && ctrl < 0x120) { const int n = ctrl - 0x110; return i >= n ? 16 * r + i - n : -1; }
  if (ctrl > 0x120 && ctrl < 0x130) { const int n = ctrl - 0x120; return 16 * r + (i + 16 - n) % 16; }
  if (ctrl == 0x130) return lane == 63 ? -1 : lane + 1;
  if (ctrl == 0x134) return lane == 63 ? 0 : lane + 1;
  if (ctrl == 0x138) return lane == 0 ? -1 : lane - 1;
  if (ctrl == 0x13C) return lane == 0 ? 63 : lane - 1;
  if (ctrl == 0x140) return 16 * r + 15 - i;
  if (ctrl == 0x141) return i < 8 ? 16 * r + 7 - i : 16 * r + 8 + 15 - i;
  if (ctrl == 0x142) return r == 0 ? -1 : 16 * (r - 1) + 15;
  if (ctrl == 0x143) return r < 2 ? -1 : 31;
  return 16 * r + (ctrl - 0x150);  // row_newbcast n
}

int main() {
  std::vector<int> ctrls;
  for (int q = 0; q < 256; ++q) ctrls.push_back(q);
  for (int base : {0x100, 0x110, 0x120})
    for (int n = 1; n <= 15; ++n) ctrls.push_back(base + n);
  for (int c : {0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143}) ctrls.push_back(c);
  for (int n = 0; n < 16; ++n) ctrls.push_back(0x150 + n);
  const Case masks[] = {{0, 0xF, 0xF, 0}, {0, 0xF, 0xF, 1}, {0, 0xA, 0xF, 0}, {0, 0x5, 0x3, 1},
                        {0, 0xF, 0x6, 0}, {0, 0x0, 0xF, 1}, {0, 0xC, 0x9, 1}};
  std::vector<Case> cases;
  for (int c : ctrls)
    for (Case m : masks) cases.push_back({c, m.row_mask, m.bank_mask, m.bound});
  const int n = int(cases.size());

  Case* dc = nullptr;
  int *du = nullptr, *dm = nullptr;
  hipMalloc(&dc, sizeof(Case) * n);
  hipMalloc(&du, sizeof(int) * n * kLanes);
  hipMalloc(&dm, sizeof(int) * n * kLanes);
  hipMemcpy(dc, cases.data(), sizeof(Case) * n, hipMemcpyHostToDevice);
  std::vector<int> upd(n * kLanes), mov(n * kLanes);
  int bad = 0;
  // A 48-lane wave (lanes 48-63 do not run: reading one is an invalid source, as out of range is) and a full one.
  for (int lanes : {48, kLanes}) {  // the full wave last: the spot checks below read it
    dpp_sweep<<<1, lanes>>>(dc, n, du, dm);
    hipMemcpy(upd.data(), du, sizeof(int) * upd.size(), hipMemcpyDeviceToHost);
    hipMemcpy(mov.data(), dm, sizeof(int) * mov.size(), hipMemcpyDeviceToHost);
    auto fail = [&](const char* what, int i, int l, unsigned got, unsigned want) {
      if (++bad <= 20)
        std::printf("FAIL %s %d lanes ctrl 0x%X row_mask 0x%X bank_mask 0x%X bound_ctrl %d lane %d: "
                    "got 0x%X want 0x%X\n",
                    what, lanes, cases[i].ctrl, cases[i].row_mask, cases[i].bank_mask, cases[i].bound, l, got, want);
    };
    for (int i = 0; i < n; ++i) {
      const Case c = cases[i];
      for (int l = 0; l < lanes; ++l) {
        const bool written = ((c.row_mask >> (l / 16)) & 1) && ((c.bank_mask >> ((l % 16) / 4)) & 1);
        int s = isa_source(c.ctrl, l);
        if (s >= lanes) s = -1;
        const int old = 0x7000 + 11 * l + 3;
        int want_u = old, want_m = -1;  // -1: the poison (all bits set)
        if (written && s >= 0) want_u = want_m = 0x1000 + 37 * s + 1;
        else if (written && c.bound) want_u = want_m = 0;
        if (upd[i * kLanes + l] != want_u) fail("update_dpp", i, l, upd[i * kLanes + l], want_u);
        if (mov[i * kLanes + l] != want_m) fail("mov_dpp", i, l, mov[i * kLanes + l], want_m);
      }
    }
  }

  // Literal spot checks (values v[l] = 0x1000 + 37 l + 1, old[l] = 0x7000 + 11 l + 3).
  auto at = [&](int ctrl, int mi, int lane, const std::vector<int>& t) {
    for (int i = 0; i < n; ++i)
      if (cases[i].ctrl == ctrl && cases[i].row_mask == masks[mi].row_mask &&
          cases[i].bank_mask == masks[mi].bank_mask && cases[i].bound == masks[mi].bound)
        return t[i * kLanes + lane];
    return 0;
  };
  struct Spot { int ctrl, mask_index, lane, want; const char* what; };
  const Spot spots[] = {
      {0x111, 0, 17, 0x1000 + 37 * 16 + 1, "row_shr:1 lane 17 reads lane 16"},
      {0x111, 0, 16, 0x7000 + 11 * 16 + 3, "row_shr:1 lane 16 (row start), bound_ctrl 0: old"},
      {0x111, 1, 16, 0, "row_shr:1 lane 16, bound_ctrl 1: 0"},
      {0x10F, 0, 32, 0x1000 + 37 * 47 + 1, "row_shl:15 lane 32 reads lane 47"},
      {0x121, 0, 48, 0x1000 + 37 * 63 + 1, "row_ror:1 lane 48 reads lane 63"},
      {0x138, 0, 16, 0x1000 + 37 * 15 + 1, "wave_shr:1 lane 16 reads lane 15 (crosses the row)"},
      {0x13C, 0, 0, 0x1000 + 37 * 63 + 1, "wave_ror:1 lane 0 reads lane 63"},
      {0x142, 2, 20, 0x1000 + 37 * 15 + 1, "row_bcast:15 row_mask 0xA lane 20 reads lane 15"},
      {0x142, 2, 36, 0x7000 + 11 * 36 + 3, "row_bcast:15 row_mask 0xA lane 36 (row 2 masked): old"},
      {0x143, 6, 60, 0x1000 + 37 * 31 + 1, "row_bcast:31 row_mask 0xC bank_mask 0x9 lane 60 reads lane 31"},
      {0x143, 6, 36, 0x7000 + 11 * 36 + 3, "row_bcast:31 bank_mask 0x9 lane 36 (bank 1 masked): old"},
      {0x1B, 3, 1, 0x1000 + 37 * 2 + 1, "quad_perm [3,2,1,0] lane 1 reads lane 2"},
      {0x153, 0, 40, 0x1000 + 37 * 35 + 1, "row_newbcast:3 lane 40 reads lane 35"},
  };
  for (const Spot& sp : spots) {
    const int got = at(sp.ctrl, sp.mask_index, sp.lane, upd);
    if (got != sp.want) {
      std::printf("FAIL spot %s: got 0x%X want 0x%X\n", sp.what, got, sp.want);
      ++bad;
    }
  }

  // Other types: row_shr:3 row_mask 0xB (rows 0, 1, 3 written), bound_ctrl 0; quad_perm 0x1B reverses each quad.
  Typed* dt = nullptr;
  hipMalloc(&dt, sizeof(Typed) * kLanes);
  dpp_types<<<1, kLanes>>>(dt);
  std::vector<Typed> typed(kLanes);
  hipMemcpy(typed.data(), dt, sizeof(Typed) * kLanes, hipMemcpyDeviceToHost);
  for (int l = 0; l < kLanes; ++l) {
    const bool moved = l / 16 != 2 && l % 16 >= 3;
    const int s = moved ? l - 3 : l;
    const int q = 4 * (l / 4) + 3 - l % 4;
    const float wf = moved ? 1.5f + 0.25f * s : -7.0f - l;
    const unsigned wu = moved ? 0xF0000000u + 3u * s : 0xABCD0000u + l;
    const double wd = moved ? -2.0 - 0.5 * s : 9.0 + l;
    const long long wq = 0x123456789ALL * (q + 1);
    const short ws = short(-300 - q);
    const _Float16 wh = _Float16(0.5f + q);
    const Typed& g = typed[l];
    if (std::memcmp(&g.f, &wf, 4) || g.u != wu || std::memcmp(&g.d, &wd, 8) || g.q != wq || g.s != ws ||
        std::memcmp(&g.h, &wh, 2)) {
      std::printf("FAIL typed lane %d: got %g %#x %g %lld %d %g want %g %#x %g %lld %d %g\n", l, g.f, g.u, g.d, g.q,
                  g.s, float(g.h), wf, wu, wd, wq, ws, float(wh));
      ++bad;
    }
  }

  int* dr = nullptr;
  hipMalloc(&dr, sizeof(int) * kLanes);
  read_float<<<1, kLanes>>>(dr);
  std::vector<int> rf(kLanes);
  hipMemcpy(rf.data(), dr, sizeof(int) * kLanes, hipMemcpyDeviceToHost);
  for (int l = 0; l < kLanes; ++l)
    if (rf[l] != 7 + 100 * 2) {  // readlane(2.75 + l, 5) = int(7.75) = 7; readfirstlane = int(2.75) = 2
      std::printf("FAIL readlane/readfirstlane of a float lane %d: got %d want %d\n", l, rf[l], 207);
      ++bad;
    }

  hipFree(dc); hipFree(du); hipFree(dm); hipFree(dt); hipFree(dr);
  std::printf("%d controls x %d mask settings checked\n", int(ctrls.size()), int(std::size(masks)));
  std::printf(bad ? "FAIL %d mismatches\n" : "PASS\n", bad);
  return bad ? 1 : 0;
}
