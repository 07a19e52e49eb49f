// Arch profiles: the few per-target facts kernels, plans, tests and the simulator need (wave size, LDS capacity
// per block, CU/SM count, FP8 flavour). Host-only, backend-neutral. The sim backend emulates a chosen profile.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace dsv4::port {

enum class Arch { gfx942, gfx950, sm_90 };
enum class Fp8Flavor { fnuz, ocp };  // gfx942: E4M3FNUZ/E5M2FNUZ; gfx950 and sm_90: OCP E4M3FN/E5M2

struct ArchProfile {
  Arch arch;
  std::string_view name;           // "gfx942", "gfx950", "sm_90"
  int wave_size;                   // 64 on CDNA, 32 on NVIDIA
  std::size_t lds_bytes_per_block; // maximum static + dynamic LDS one block may request
  int compute_units;               // CUs (AMD) or SMs (NVIDIA)
  Fp8Flavor fp8;
  int max_cluster_blocks;          // workgroups per thread-block cluster at most (portable size on sm_90; 1 on CDNA)
};

inline constexpr ArchProfile kGfx942{Arch::gfx942, "gfx942", 64, 64 * 1024, 304, Fp8Flavor::fnuz, 1};
inline constexpr ArchProfile kGfx950{Arch::gfx950, "gfx950", 64, 160 * 1024, 256, Fp8Flavor::ocp, 1};
inline constexpr int kSm90NamedBarriers = 16;  // barrier ids per block (0: __syncthreads'; kernels/nvidia/port/named_barrier.hpp)
inline constexpr ArchProfile kSm90{Arch::sm_90, "sm_90", 32, 227 * 1024, 132, Fp8Flavor::ocp, 8};

constexpr const ArchProfile& profile(Arch a) {
  switch (a) {
    case Arch::gfx942: return kGfx942;
    case Arch::gfx950: return kGfx950;
    case Arch::sm_90: break;
  }
  return kSm90;
}

// "gfx942" / "gfx950" / "sm_90" (also "sm90"); nullopt for anything else.
constexpr std::optional<Arch> parse_arch(std::string_view s) {
  if (s == "gfx942") return Arch::gfx942;
  if (s == "gfx950") return Arch::gfx950;
  if (s == "sm_90" || s == "sm90") return Arch::sm_90;
  return std::nullopt;
}

}  // namespace dsv4::port
