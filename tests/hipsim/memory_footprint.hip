// The hipsim runtime's memory stays bounded over a long campaign while use-after-free is still reported.
// `footprint`: 1200 hipMalloc/launch/hipFree cycles of 1 MiB (1.2 GiB if freed blocks were kept without bound) and
// 20000 launches with a 2 KiB by-value argument (47 MiB if argument blocks outlived their launch): the bytes the
// runtime holds (__hipsim_held_bytes, a hipsim-only query: RSS also counts ASan's own quarantine) stay within the
// 256 MiB quarantine plus one block, and do not grow over the launches; every launch's result is checked. The
// resident size is printed beside them. `use_after_free`: a kernel reading a block just freed is reported as such.
// Usage: memory_footprint footprint|use_after_free. Exit 0: all hold; 1: one does not (named); 3: a HIP error.
#include <hip/hip_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "hip_check.hpp"

struct WideArgs {
  float v[512];  // 2 KiB: kernel arguments by value
};

__global__ void sum_args(WideArgs a, float* out) {
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < 512; ++i) s += a.v[i];
    out[0] = s;
  }
}

__global__ void stamp(unsigned* p, unsigned value) { p[threadIdx.x] = value + threadIdx.x; }

__global__ void read_first(const unsigned* p, unsigned* out) { out[threadIdx.x] = p[threadIdx.x]; }

static double resident_mib() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f || std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  if (f) std::fclose(f);
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

static int footprint() {
  int bad = 0;
  auto expect = [&bad](bool ok, const char* what) {
    if (!ok) ++bad;
    std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  };
  const double start = resident_mib();
  bool stamps_ok = true;
  for (unsigned i = 1; i <= 1200; ++i) {
    unsigned* p;
    HIPSIM_CHECK(hipMalloc(&p, 1 << 20));
    stamp<<<1, 64>>>(p, i * 100);
    unsigned got[64];
    HIPSIM_CHECK(hipMemcpy(got, p, sizeof got, hipMemcpyDeviceToHost));
    for (unsigned t = 0; t < 64; ++t) stamps_ok = stamps_ok && got[t] == i * 100 + t;
    HIPSIM_CHECK(hipFree(p));
  }
  const double after_frees = resident_mib();
  const double held_after_frees = double(__hipsim_held_bytes()) / (1 << 20);
  std::printf("resident MiB: start %.1f, after 1200 x 1 MiB freed %.1f; held by the runtime %.1f MiB\n", start,
              after_frees, held_after_frees);
  expect(stamps_ok, "every 1 MiB block read back its stamp");
  expect(held_after_frees <= 256 + 2, "1.2 GiB freed: the runtime holds at most the 256 MiB quarantine + one block");

  float* out;
  HIPSIM_CHECK(hipMalloc(&out, sizeof(float)));
  WideArgs a;
  for (int i = 0; i < 512; ++i) a.v[i] = float(i % 7 + 1);  // small integers: the sum is exact in float
  float rest = 0.0f;  // the sum of v[1..511]; v[0] changes per launch
  for (int i = 1; i < 512; ++i) rest += a.v[i];
  bool sums_ok = true;
  double before_launches = 0;
  std::size_t held_before_launches = 0;
  for (int i = 0; i < 20000; ++i) {
    if (i == 1000) {
      HIPSIM_CHECK(hipDeviceSynchronize());
      before_launches = resident_mib();
      held_before_launches = __hipsim_held_bytes();
    }
    a.v[0] = float(i % 3 + 1);
    sum_args<<<1, 64>>>(a, out);
    if (i % 2000 == 0) {
      float got = 0;
      HIPSIM_CHECK(hipMemcpy(&got, out, sizeof got, hipMemcpyDeviceToHost));
      sums_ok = sums_ok && got == rest + a.v[0];
    }
  }
  HIPSIM_CHECK(hipDeviceSynchronize());
  const double after_launches = resident_mib();
  const std::size_t held_after_launches = __hipsim_held_bytes();
  std::printf("resident MiB: after 1000 launches %.1f, after 20000 %.1f; held by the runtime: %zu B, then %zu B\n",
              before_launches, after_launches, held_before_launches, held_after_launches);
  expect(sums_ok, "every checked launch summed its own arguments");
  expect(held_after_launches == held_before_launches, "19000 launches with 2 KiB arguments: the runtime holds no more");
  HIPSIM_CHECK(hipFree(out));
  std::printf(bad ? "FAILED %d\n" : "PASS\n", bad);
  return bad ? 1 : 0;
}

static int use_after_free() {
  unsigned *p, *out;
  HIPSIM_CHECK(hipMalloc(&p, 256));
  HIPSIM_CHECK(hipMalloc(&out, 256));
  stamp<<<1, 64>>>(p, 7);
  HIPSIM_CHECK(hipFree(p));
  read_first<<<1, 64>>>(p, out);
  hipDeviceSynchronize();
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  std::printf("memory_footprint %s\n", mode);
  if (std::strcmp(mode, "footprint") == 0) return footprint();
  if (std::strcmp(mode, "use_after_free") == 0) return use_after_free();
  std::fprintf(stderr, "usage: memory_footprint footprint|use_after_free\n");
  return 2;
}
