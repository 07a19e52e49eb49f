// Shapes and generators of the skinny plan tests (tests/kernels/skinny_gemm/test_skinny_plan.cpp: the portable
// plan over the AMD profiles; tests/kernels/nvidia/skinny_gemm/test_sm90_plan*.cpp: the sm_90 plan).
#pragma once

#include <rapidcheck.h>

#include <cstdint>

#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::test::skinny_plan {

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;

// The portable kernel's profiles: 0 gfx942, 1 gfx950.
inline const port::ArchProfile& arch_of(int i) {
  static const port::ArchProfile* all[] = {&port::kGfx942, &port::kGfx950};
  return *all[i];
}

inline sk::SkinnyShape shape_nmk(std::int64_t n, std::int64_t m, std::int64_t k) {
  sk::SkinnyShape s;
  s.n = n;
  s.m = m;
  s.k = k;
  return s;
}

// Any shape of the skinny range (N 1..128, M < 20000, K % 8 == 0 up to 32768, padded rows of a, both dtypes, every
// bias shape).
inline rc::Gen<sk::SkinnyShape> gen_shape() {
  return rc::gen::apply(
      [](int n, int m, int k8, int pad8, bool f16, int bias) {
        sk::SkinnyShape s;
        s.n = n;
        s.m = m;
        s.k = static_cast<std::int64_t>(k8) * 8;
        s.lda = s.k + static_cast<std::int64_t>(pad8) * 8;
        s.dtype = f16 ? sk::ElemType::f16 : sk::ElemType::bf16;
        s.bias = static_cast<sk::BiasShape>(bias);
        return s;
      },
      rc::gen::inRange(1, 129), rc::gen::inRange(1, 20000), rc::gen::inRange(1, 4097), rc::gen::inRange(0, 9),
      rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 4));
}

}  // namespace dsv4::test::skinny_plan
