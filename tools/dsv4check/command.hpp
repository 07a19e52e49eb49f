// Subcommand registration for the dsv4check CLI. Each cmd_<name>.cpp defines one subcommand:
//
//   static dsv4::cli::Registrar reg{"formats", "Inspect and convert low-precision number formats",
//                                   [](CLI::App& sub) -> std::function<int()> { ...add options...;
//                                       return [] { ...run...; return 0; }; }};
//
// The setup function adds options to `sub` and returns the action that runs after parsing.
// Exit codes: 0 success, 1 a check failed (mismatch), 2 usage error or invalid input.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dsv4::cli {

using Action = std::function<int()>;
using Setup = std::function<Action(CLI::App&)>;

struct Command {
  std::string name;
  std::string description;
  Setup setup;
};

std::vector<Command>& commands();

struct Registrar {
  Registrar(std::string name, std::string description, Setup setup) {
    commands().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

// Thrown by an action for bad input (unreadable file, unknown name, ...): main prints
// "dsv4check <cmd>: error: <what>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace dsv4::cli
