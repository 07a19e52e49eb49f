// HIPSIM_CHECK(call): the tests/hipsim harnesses' HIP error check inside main(): a failing call prints its name and
// the error and makes main return 3 (2 is a usage error, 1 a wrong result).
#pragma once
#include <hip/hip_runtime.h>

#include <cstdio>

#define HIPSIM_CHECK(call)                                                                             \
  do {                                                                                                 \
    const hipError_t e_ = (call);                                                                      \
    if (e_ != hipSuccess) {                                                                            \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #call, hipGetErrorName(e_), hipGetErrorString(e_)); \
      return 3;                                                                                        \
    }                                                                                                  \
  } while (0)
