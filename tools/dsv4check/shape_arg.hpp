// Parsing of `--shape k=v,...` (and `--attrs`) command-line values into the JSON object an op's generator
// takes. Each value becomes a JSON integer (decimal, optional sign), a float (anything std::strtod reads
// entirely, e.g. 0.5, 1e-3, inf), a bool (true/false), or else a string. Empty keys, a piece without '=',
// and a repeated key are UsageErrors naming the piece.
#pragma once
#include <string>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4::cli {

Json parse_key_values(const std::string& text, const std::string& option = "--shape");
Json parse_scalar(const std::string& value);

}  // namespace dsv4::cli
