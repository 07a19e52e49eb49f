// The exception of bad user input in dsv4check (unreadable file, unknown name, ...): main prints
// "dsv4check <cmd>: error: <what>" and exits 2.
#pragma once
#include <stdexcept>

namespace dsv4::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace dsv4::cli
