// Plan of the fp8_einsum kernel; see einsum_plan.hpp.
#include "kernels/fp8_einsum/einsum_plan.hpp"

#include <fmt/format.h>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::einsum {

std::string EinsumPlan::describe() const {
  return fmt::format("fp8_einsum {} recipe=({}) B={} H={} R={} D={} -> {}{}", shape.expr, shape.recipe, shape.b,
                     shape.h, shape.r, shape.d, gemm.describe(), ok ? "" : " REFUSED: " + reason);
}

EinsumPlan make_einsum_plan(const EinsumShape& s, const port::ArchProfile& arch, const bsgemm::BsGemmOptions& opt) {
  EinsumPlan p;
  p.shape = s;
  if (s.expr != "bhr,hdr->bhd")
    return refuse(p, fmt::format("expression '{}' is not implemented (only 'bhr,hdr->bhd'; SM100's 'bhd,hdr->bhr' and "
                              "'bhd,bhr->hdr' are not)", s.expr));
  if (s.recipe != "1,128,128" && s.recipe != "1,1,128")
    return refuse(p, fmt::format("recipe ({}) is not (1,128,128) or (1,1,128)", s.recipe));
  bsgemm::BsGemmShape g;
  g.batch = s.h;
  g.m = s.b;
  g.n = s.d;
  g.k = s.r;
  g.fp8 = s.fp8;
  g.x_scale = s.x_scale;
  g.w_scale = s.w_scale;
  g.w_row_block = s.recipe == "1,128,128" ? 128 : 1;
  g.has_c = s.has_c;
  g.out = s.has_c ? bsgemm::OutType::f32 : bsgemm::OutType::bf16;
  p.gemm = bsgemm::make_plan(g, arch, opt);
  if (!p.gemm.ok) return refuse(p, p.gemm.reason);
  p.ok = true;
  return p;
}

bool can_implement(const EinsumShape& s, const port::ArchProfile& arch, const bsgemm::BsGemmOptions& opt) {
  return make_einsum_plan(s, arch, opt).ok;
}

}  // namespace dsv4::kernels::einsum
