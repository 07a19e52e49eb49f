// Option declarations of one dsv4check (sub)command, without CLI11 in the header: each cmd_<name>.cpp declares
// its options on an Args, and cli_args.cpp (the one file that includes CLI11) forwards them to a CLI::App.
// The calls mirror CLI11's: add_option(...)->required()->capture_default_str(), add_flag, add_subcommand,
// require_subcommand, parsed. add_option takes the value types instantiated in cli_args.cpp.
#pragma once
#include <deque>
#include <memory>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace dsv4::cli {

class Opt {  // one declared option; its calls return this for chaining
 public:
  explicit Opt(CLI::Option* o) : o_(o) {}
  Opt* required();
  Opt* capture_default_str();
  Opt* check_existing_directory();  // every value names an existing folder

 private:
  CLI::Option* o_;
};

class Args {  // one (sub)command; owns the handles of its options and subcommands
 public:
  explicit Args(CLI::App& app) : app_(&app) {}
  Args(const Args&) = delete;
  Args& operator=(const Args&) = delete;

  template <class T>
  Opt* add_option(const std::string& name, T& value, const std::string& description = "");
  Opt* add_flag(const std::string& name, bool& value, const std::string& description = "");
  Args* add_subcommand(const std::string& name, const std::string& description);
  void require_subcommand(int n);
  void require_subcommand(int min, int max);
  void group(const std::string& name);  // "" hides this subcommand from --help
  bool parsed() const;
  std::string get_name() const;

 private:
  CLI::App* app_;
  std::deque<Opt> opts_;
  std::deque<std::unique_ptr<Args>> subs_;
};

}  // namespace dsv4::cli
