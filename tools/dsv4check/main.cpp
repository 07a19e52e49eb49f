// dsv4check entry point: the registry of subcommands (each cmd_<name>.cpp adds one) and main, which hands argv
// to cli::run (cli_args.cpp).
#include "tools/dsv4check/command.hpp"

namespace dsv4::cli {
std::vector<Command>& commands() {
  static std::vector<Command> c;
  return c;
}
}  // namespace dsv4::cli

int main(int argc, char** argv) { return dsv4::cli::run(argc, argv); }
