// Shared timing helper of the issue-7 kernel benchmarks (bench_merge_attn_states, bench_per_token_group_quant_fp8):
// median time of one launch over repeated batches. On a GPU it uses events (device time); on sim events have no
// clock, so it falls back to host wall time (simulator CPU time: a checker's speed, not a device number).
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "kernels/port/runtime.hpp"

namespace dsv4::bench {

// Median milliseconds per call of `launch` (which enqueues one kernel on `s`), over `reps` batches of `per_batch`.
inline double median_ms(const std::function<void()>& launch, dsv4::port::Stream& s, int reps, int per_batch) {
  namespace port = dsv4::port;
  launch();  // warm-up
  s.synchronize();
  std::vector<double> t;
  const bool sim = port::backend() == port::Backend::sim;
  for (int r = 0; r < reps; ++r) {
    port::Event a, b;
    const auto h0 = std::chrono::steady_clock::now();
    a.record(s);
    for (int i = 0; i < per_batch; ++i) launch();
    b.record(s);
    b.synchronize();
    const double host = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
    t.push_back((sim ? host : static_cast<double>(port::Event::elapsed_ms(a, b))) / per_batch);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace dsv4::bench
