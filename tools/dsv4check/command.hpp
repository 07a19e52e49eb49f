// Subcommand registration for the dsv4check CLI. Each cmd_<name>.cpp defines one subcommand:
//
//   static dsv4::cli::Registrar reg{"formats", "Inspect and convert low-precision number formats",
//                                   [](dsv4::cli::Args& sub) -> std::function<int()> { ...add options...;
//                                       return [] { ...run...; return 0; }; }};
//
// The setup function adds options to `sub` (cli_args.hpp) and returns the action that runs after parsing.
// Exit codes: 0 success, 1 a check failed (mismatch), 2 usage error or invalid input.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tools/dsv4check/cli_args.hpp"
#include "tools/dsv4check/usage_error.hpp"

namespace dsv4::cli {

using Action = std::function<int()>;
using Setup = std::function<Action(Args&)>;

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

// Parses argv against the registered subcommands and runs the chosen one (cli_args.cpp); the exit code.
int run(int argc, char** argv);

}  // namespace dsv4::cli
