// Stage seconds of fuzz cases; see stage_times.hpp.
#include "fuzz/campaign/stage_times.hpp"

#include <fmt/format.h>

namespace dsv4::fuzz {

StageSeconds& StageSeconds::operator+=(const StageSeconds& o) {
  generate += o.generate;
  reference += o.reference;
  kernel += o.kernel;
  judge += o.judge;
  return *this;
}

Json StageSeconds::to_json() const {
  return Json{{"generate", generate}, {"reference", reference}, {"kernel", kernel}, {"judge", judge}};
}

StageSeconds StageSeconds::from_json(const Json& j) {
  StageSeconds s;
  if (!j.is_object()) return s;
  s.generate = j.value("generate", 0.0);
  s.reference = j.value("reference", 0.0);
  s.kernel = j.value("kernel", 0.0);
  s.judge = j.value("judge", 0.0);
  return s;
}

const char* StageSeconds::bound() const {
  if (total() <= 0) return "-";
  const char* name = "generate";
  double best = generate;
  if (reference > best) best = reference, name = "reference";
  if (kernel > best) best = kernel, name = "kernel";
  if (judge > best) best = judge, name = "judge";
  return name;
}

std::string StageSeconds::shares() const {
  const double t = total();
  if (t <= 0) return "gen -% ref -% kernel -% judge -%";
  return fmt::format("gen {:.0f}% ref {:.0f}% kernel {:.0f}% judge {:.0f}%", 100 * generate / t, 100 * reference / t,
                     100 * kernel / t, 100 * judge / t);
}

double cases_per_second(double cases, const StageSeconds& s) { return s.total() > 0 ? cases / s.total() : 0.0; }

}  // namespace dsv4::fuzz
