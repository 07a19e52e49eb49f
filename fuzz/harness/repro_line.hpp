// The one-line `dsv4check repro` command that reproduces a case, built in one place for every tool that
// prints or stores one (dsv4check repro, fuzz campaigns and their fixtures' "source"). The format is
// parsed back by `dsv4check repro`, so it must stay stable:
//   dsv4check repro --op OP [--shape k=v,...] [--dtype D] [--attrs 'JSON'] --backend B [--arch A]
//                   [--variant V] --seed S [--streams N] [--set-code NAME:INDEX=CODE ...]
// Optional flags appear only when they differ from the tool's defaults (variant "default", 1 stream).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::fuzz {

struct ReproLine {
  std::string op;
  Json shape = Json::object();  // generator shape JSON (its "dtype" key is left out when `dtype` is set)
  std::string dtype;            // --dtype
  Json attrs = Json::object();  // --attrs
  std::string backend = "reference";
  std::string arch;
  std::string variant = "default";
  std::uint64_t seed = 0;
  int streams = 1;
  std::vector<std::string> set_codes;  // --set-code assignments, in order
};

// "k=v,k=v" in the shape's key order; strings unquoted, other values as JSON; "" for an empty or non-object shape.
std::string shape_kv_list(const Json& shape);

std::string repro_line(const ReproLine& r);

}  // namespace dsv4::fuzz
