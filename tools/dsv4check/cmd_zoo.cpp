// `dsv4check zoo [--bug ID] [--json] [--no-clean]`: runs the bug zoo (fuzz/zoo/zoo.hpp) and prints one row
// per bug: which detector caught it, after how many cases, how long, and the diagnosis; plus whether the
// correct implementation stayed silent over the same cases. Exit 0 when every bug is caught by its expected
// detector with the expected diagnosis and no correct implementation raised an alarm, 1 otherwise, 2 for an
// unknown --bug.
#include <fmt/format.h>

#include <iostream>

#include "fuzz/zoo/zoo.hpp"
#include "tools/dsv4check/command.hpp"

namespace {

namespace zoo = dsv4::fuzz::zoo;

std::string clip(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

dsv4::cli::Registrar reg{
    "zoo", "Bug zoo: run each known bug's buggy variant until the suite detects it, and the correct one for false alarms",
    [](dsv4::cli::Args& sub) -> dsv4::cli::Action {
      struct Opts {
        std::vector<std::string> bugs;
        bool json = false, no_clean = false, wide = false;
      };
      auto o = std::make_shared<Opts>();
      sub.add_option("--bug", o->bugs, "Only these bug ids (1, 2, ..., 6a, 6b, 7a, ...); repeatable");
      sub.add_flag("--json", o->json, "Print a JSON array of results");
      sub.add_flag("--no-clean", o->no_clean, "Skip the correct-implementation (false alarm) runs");
      sub.add_flag("--wide", o->wide, "Do not clip the diagnosis column");
      return [o]() -> int {
        std::vector<const zoo::ZooEntry*> run;
        if (o->bugs.empty())
          for (const auto& e : zoo::entries()) run.push_back(&e);
        for (const auto& id : o->bugs) {
          const zoo::ZooEntry* e = zoo::find_entry(id);
          if (!e) {
            std::string ids;
            for (const auto& x : zoo::entries()) ids += (ids.empty() ? "" : ", ") + x.id;
            throw dsv4::cli::UsageError("unknown bug '" + id + "' (known: " + ids + ")");
          }
          run.push_back(e);
        }
        bool ok = true;
        dsv4::Json all = dsv4::Json::array();
        if (!o->json)
          std::cout << fmt::format("{:<4} {:<52} {:<34} {:<6} {:>9} {:>8} {:<6} {}\n", "bug", "title", "detector",
                                   "caught", "cases", "time_s", "clean", "diagnosis");
        for (const zoo::ZooEntry* e : run) {
          const zoo::ZooResult r = zoo::run_entry(*e, !o->no_clean);
          const bool good = r.caught && r.diagnosis_ok && !r.false_alarm;
          ok = ok && good;
          if (o->json) {
            all.push_back(r.to_json());
            continue;
          }
          // The detector that caught it first, then any other that fired on the same case.
          std::string det = r.caught ? zoo::detector_name(r.expected) : std::string("-");
          for (zoo::Detector d : r.detectors)
            if (d != r.expected && det.find(zoo::detector_name(d)) == std::string::npos) det += std::string("+") + zoo::detector_name(d);
          const std::string clean = !r.clean_checked ? "-" : r.false_alarm ? "ALARM" : "quiet";
          std::cout << fmt::format("{:<4} {:<52} {:<34} {:<6} {:>9} {:>8.3f} {:<6} {}\n", r.id, clip(r.title, 52), det, r.caught ? (r.diagnosis_ok ? "yes" : "diag?") : "NO",
                                   fmt::format("{}/{}", r.cases_until_detection, r.cases_total), r.seconds, clean,
                                   o->wide ? r.diagnosis : clip(r.diagnosis, 160));
          if (r.false_alarm) std::cout << "     false alarm: " << r.false_alarm_text << "\n";
        }
        if (o->json) std::cout << all.dump(2) << "\n";
        return ok ? 0 : 1;
      };
    }};

}  // namespace
