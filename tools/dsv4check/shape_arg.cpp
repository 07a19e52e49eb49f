// `k=v,...` parsing; see shape_arg.hpp.
#include "tools/dsv4check/shape_arg.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "tools/dsv4check/usage_error.hpp"

namespace dsv4::cli {

Json parse_scalar(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  std::int64_t i = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
  if (!v.empty() && ec == std::errc() && p == v.data() + v.size()) return i;
  if (!v.empty()) {
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(v.c_str(), &end);
    if (end == v.c_str() + v.size() && errno == 0) return d;
  }
  return v;
}

Json parse_key_values(const std::string& text, const std::string& option) {
  Json j = Json::object();
  std::size_t pos = 0;
  while (pos <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string piece = text.substr(pos, comma - pos);
    const std::size_t eq = piece.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(fmt::format("{}: '{}' is not of the form key=value (in \"{}\")", option, piece, text));
    const std::string key = piece.substr(0, eq);
    if (j.contains(key)) throw UsageError(fmt::format("{}: key '{}' is given twice", option, key));
    j[key] = parse_scalar(piece.substr(eq + 1));
    pos = comma + 1;
  }
  return j;
}

}  // namespace dsv4::cli
