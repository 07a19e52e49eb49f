// Where a fuzz case's time goes: busy seconds in each stage (drawing inputs, the float64 reference, the
// implementation under test, the oracle's judgement), summed per case (shrinking attempts included)
// and per op. With prefetch the first two run on the worker's pool while a kernel runs, so the stage
// sum may exceed the wall time; shares are of the stage sum, and an op's cases/s is its cases over its
// stage sum (the rate it would have alone, one case at a time).
#pragma once
#include <string>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz {

struct StageSeconds {
  double generate = 0, reference = 0, kernel = 0, judge = 0;
  double total() const { return generate + reference + kernel + judge; }
  StageSeconds& operator+=(const StageSeconds& o);
  Json to_json() const;
  static StageSeconds from_json(const Json& j);  // missing keys read as 0 (older checkpoints)
  // The largest stage's name ("generate", "reference", "kernel", "judge"); "-" when all are 0.
  const char* bound() const;
  // "gen 12% ref 70% kernel 15% judge 3%" (shares of total()).
  std::string shares() const;
};

// Cases per busy second ("-" style 0 when no time was spent).
double cases_per_second(double cases, const StageSeconds& s);

}  // namespace dsv4::fuzz
