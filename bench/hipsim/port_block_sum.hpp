// The kernels/port side of bench_hipsim_vs_port: runs port_block_sum `reps` times over rows x cols (cols <= 1024)
// on the existing sim path and returns the row sums.
#pragma once
#include <vector>

namespace dsv4::bench {
std::vector<float> run_port_block_sum(const std::vector<float>& x, int rows, int cols, int reps);
}
