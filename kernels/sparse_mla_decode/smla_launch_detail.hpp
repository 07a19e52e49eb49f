// Internal: the kernel TU's raw launch entry point (no admission checks; launch_sparse_mla_decode does them).
#pragma once
#include "kernels/sparse_mla_decode/sparse_mla_decode.hpp"

namespace dsv4::kernels::smla {

void launch_smla_kernels(const SmlaPlan& plan, const SmlaBuffers& io, void* workspace, port::Stream& stream);

}  // namespace dsv4::kernels::smla
