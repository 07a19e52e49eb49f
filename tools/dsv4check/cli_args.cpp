// The one dsv4check file that includes CLI11: Args and Opt forwarded to CLI::App and CLI::Option, and run(),
// which builds the app from the registered subcommands, parses argv and maps errors to exit codes (usage or
// input errors: 2).
#include "tools/dsv4check/cli_args.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <vector>

#include "tools/dsv4check/command.hpp"

namespace dsv4::cli {

Opt* Opt::required() {
  o_->required();
  return this;
}
Opt* Opt::capture_default_str() {
  o_->capture_default_str();
  return this;
}
Opt* Opt::check_existing_directory() {
  o_->check(CLI::ExistingDirectory);
  return this;
}

template <class T>
Opt* Args::add_option(const std::string& name, T& value, const std::string& description) {
  return &opts_.emplace_back(app_->add_option(name, value, description));
}
template Opt* Args::add_option(const std::string&, std::string&, const std::string&);
template Opt* Args::add_option(const std::string&, std::vector<std::string>&, const std::string&);
template Opt* Args::add_option(const std::string&, int&, const std::string&);
template Opt* Args::add_option(const std::string&, unsigned&, const std::string&);
template Opt* Args::add_option(const std::string&, long&, const std::string&);
template Opt* Args::add_option(const std::string&, unsigned long&, const std::string&);
template Opt* Args::add_option(const std::string&, long long&, const std::string&);
template Opt* Args::add_option(const std::string&, unsigned long long&, const std::string&);
template Opt* Args::add_option(const std::string&, double&, const std::string&);

Opt* Args::add_flag(const std::string& name, bool& value, const std::string& description) {
  return &opts_.emplace_back(app_->add_flag(name, value, description));
}
Args* Args::add_subcommand(const std::string& name, const std::string& description) {
  return subs_.emplace_back(std::make_unique<Args>(*app_->add_subcommand(name, description))).get();
}
void Args::require_subcommand(int n) { app_->require_subcommand(n); }
void Args::require_subcommand(int min, int max) {
  app_->require_subcommand(static_cast<std::size_t>(min), static_cast<std::size_t>(max));
}
void Args::group(const std::string& name) { app_->group(name); }
bool Args::parsed() const { return app_->parsed(); }
std::string Args::get_name() const { return app_->get_name(); }

int run(int argc, char** argv) {
  CLI::App app{"dsv4check: correctness and numerical validation of DeepSeek-V4 GPU kernels"};
  app.require_subcommand(1);
  auto& cmds = commands();
  std::sort(cmds.begin(), cmds.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  std::vector<std::unique_ptr<Args>> subs;
  std::map<Args*, Action> actions;
  for (auto& c : cmds) {
    Args* sub = subs.emplace_back(std::make_unique<Args>(*app.add_subcommand(c.name, c.description))).get();
    actions[sub] = c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "dsv4check: usage error: %s\nRun `dsv4check --help` (or `dsv4check <command> --help`).\n",
                 e.what());
    return 2;
  }
  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    try {
      return action();
    } catch (const UsageError& e) {
      std::fprintf(stderr, "dsv4check %s: error: %s\n", sub->get_name().c_str(), e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dsv4check %s: error: %s\n", sub->get_name().c_str(), e.what());
      return 2;
    }
  }
  return 2;
}

}  // namespace dsv4::cli
