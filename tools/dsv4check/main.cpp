// dsv4check entry point: builds the CLI11 app from the registered subcommands and maps errors to
// exit codes (usage or input errors: 2).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>

#include "tools/dsv4check/command.hpp"

namespace dsv4::cli {
std::vector<Command>& commands() {
  static std::vector<Command> c;
  return c;
}
}  // namespace dsv4::cli

int main(int argc, char** argv) {
  using namespace dsv4::cli;
  CLI::App app{"dsv4check: correctness and numerical validation of DeepSeek-V4 GPU kernels"};
  app.require_subcommand(1);
  auto& cmds = commands();
  std::sort(cmds.begin(), cmds.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  std::map<CLI::App*, Action> actions;
  for (auto& c : cmds) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
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
