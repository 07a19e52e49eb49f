// cuda and hip backends: the sim control API (kernels/port/sim.hpp) exists but is inert, so host code and tests that query it
// link on every backend; sim_active() is false.
#include "kernels/port/sim.hpp"

namespace dsv4::port::sim {
namespace {
Options g_options;
Report g_report;
}  // namespace
bool sim_active() { return false; }
void set_options(const Options& o) { g_options = o; }
const Options& options() { return g_options; }
void reset_options() { g_options = Options{}; }
std::string_view to_string(ViolationKind) { return "sim-only"; }
std::string Violation::to_string() const { return "sim-only"; }
std::size_t Report::count(ViolationKind) const { return 0; }
std::vector<Violation> Report::of_kind(ViolationKind) const { return {}; }
std::string Report::to_string() const { return {}; }
const Report& report() { return g_report; }
Report take_report() { return {}; }
Stats stats() { return {}; }
}  // namespace dsv4::port::sim
