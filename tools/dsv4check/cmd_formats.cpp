// `dsv4check formats`: inspect and convert low-precision formats.
//   formats show FORMAT CODE [--e8m0-decode e8m0-exact|e8m0-shift23]   value and class of one code
//   formats encode FORMAT VALUE --mode M                                code of one value (float64, exact)
//   formats encode --format F --mode M --in x.f32 --out codes.bin [--fp4x2]   bulk, float32 little-endian in
//   formats decode --format F --in codes.bin --out x.f32 [--fp4x2] [--e8m0-decode ...]
//   formats modes                                                       the format and mode names
//   formats bench [--format F --mode M --n N]                           fast-encoder throughput per core
// Bulk outputs are written to a temporary file next to --out and renamed at the end, so a failed run
// leaves no partial file. Bad input (unknown name, bad size, unreadable path) exits 2.
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "reference/formats/encode.hpp"
#include "reference/formats/recipes.hpp"
#include "tools/dsv4check/command.hpp"

namespace dsv4::cli {
namespace {

using namespace dsv4::formats;

Format format_arg(const std::string& text, const char* what) {
  if (auto f = parse_format(text)) return *f;
  throw UsageError(std::string(what) + ": unknown format '" + text +
                   "' (valid: e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0fnu, e2m1fn, bf16, fp16)");
}

EncodeMode mode_arg(const std::string& text, Format f) {
  try {
    EncodeMode m = parse_mode(text);
    resolve_mode(f, m);  // refuses a mode that does not apply to f
    return m;
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--mode: ") + e.what());
  }
}

std::string code_text(Format f, std::uint32_t c) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%0*x", code_bytes(f) * 2, c);
  return b;
}

std::uint32_t parse_code(Format f, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long v = std::strtoul(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    throw UsageError("CODE: '" + text + "' is not an unsigned integer (use 0x.. for hex)");
  if (v >= info(f).code_count())
    throw UsageError("CODE: " + text + " is out of range for " + std::string(name(f)) + " (codes 0.." +
                     std::to_string(info(f).code_count() - 1) + ")");
  return static_cast<std::uint32_t>(v);
}

// A number (strtod syntax: 1.5, -inf, nan, 0x1p-3) or f32:0xBITS for an exact float32 bit pattern.
double parse_value(const std::string& text, bool& is_f32_bits, std::uint32_t& bits) {
  is_f32_bits = false;
  if (text.rfind("f32:", 0) == 0) {
    char* end = nullptr;
    errno = 0;
    const unsigned long v = std::strtoul(text.c_str() + 4, &end, 16);
    if (*end != '\0' || errno != 0 || v > 0xFFFFFFFFul || text.size() == 4)
      throw UsageError("VALUE: '" + text + "' is not f32:<hex bits>");
    is_f32_bits = true;
    bits = static_cast<std::uint32_t>(v);
    return static_cast<double>(std::bit_cast<float>(bits));
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw UsageError("VALUE: '" + text + "' is not a number (or f32:<hex bits>)");
  return v;
}

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--in: cannot read '" + path + "': " + std::strerror(errno));
  std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UsageError("--in: error while reading '" + path + "'");
  return data;
}

// Writes to <path>.tmp-<pid> and renames; removes the temporary on failure.
void write_file_atomically(const std::string& path, const void* data, std::size_t size) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UsageError("--out: cannot write '" + path + "': " + std::strerror(errno));
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw UsageError("--out: error while writing '" + path + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    std::remove(tmp.c_str());
    throw UsageError("--out: cannot move the result to '" + path + "': " + err);
  }
}

struct Options {
  std::string format_pos, value_pos, format_opt, mode, in, out, e8m0_decode = "e8m0-exact";
  bool fp4x2 = false;
  std::size_t n = std::size_t{1} << 24;
};

int run_show(const Options& o) {
  const Format f = format_arg(o.format_pos, "FORMAT");
  const std::uint32_t c = parse_code(f, o.value_pos);
  double v = decode(f, c);
  if (f == Format::e8m0fnu) {
    try {
      v = decode_e8m0(static_cast<std::uint8_t>(c), parse_e8m0_decode(o.e8m0_decode));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--e8m0-decode: ") + e.what());
    }
  }
  std::string cls(class_name(classify(f, c)));
  std::printf("%s %s = %.17g (%s) [%a]\n", std::string(name(f)).c_str(), code_text(f, c).c_str(), v, cls.c_str(), v);
  return 0;
}

int run_encode_one(const Options& o) {
  const Format f = format_arg(o.format_pos, "FORMAT");
  const EncodeMode m = mode_arg(o.mode, f);
  bool is_bits;
  std::uint32_t bits = 0;
  const double x = parse_value(o.value_pos, is_bits, bits);
  const std::uint32_t c = is_bits ? encode_f32_bits_reference(f, m, bits) : encode(f, m, x);
  std::printf("%s\n", code_text(f, c).c_str());
  return 0;
}

int run_encode_bulk(const Options& o) {
  if (o.format_opt.empty()) throw UsageError("bulk encode needs --format");
  if (o.out.empty()) throw UsageError("bulk encode needs --out");
  if (!o.value_pos.empty() || !o.format_pos.empty()) throw UsageError("give either FORMAT VALUE or --in/--out, not both");
  const Format f = format_arg(o.format_opt, "--format");
  const EncodeMode m = mode_arg(o.mode, f);
  if (o.fp4x2 && f != Format::e2m1fn) throw UsageError("--fp4x2 applies to --format e2m1fn only");
  const std::vector<unsigned char> raw = read_file(o.in);
  if (raw.size() % 4 != 0)
    throw UsageError("--in: '" + o.in + "' has " + std::to_string(raw.size()) +
                     " bytes, not a multiple of 4 (float32 little-endian expected)");
  std::vector<float> x(raw.size() / 4);
  std::memcpy(x.data(), raw.data(), raw.size());
  const FastEncoder enc(f, m);
  if (code_bytes(f) == 2) {
    std::vector<std::uint16_t> codes(x.size());
    enc.encode16(x, codes);
    write_file_atomically(o.out, codes.data(), codes.size() * 2);
  } else {
    std::vector<std::uint8_t> codes(x.size());
    enc.encode8(x, codes);
    if (o.fp4x2) codes = pack_fp4x2(codes);
    write_file_atomically(o.out, codes.data(), codes.size());
  }
  return 0;
}

int run_decode_bulk(const Options& o) {
  if (o.format_opt.empty()) throw UsageError("decode needs --format");
  if (o.in.empty() || o.out.empty()) throw UsageError("decode needs --in and --out");
  const Format f = format_arg(o.format_opt, "--format");
  if (o.fp4x2 && f != Format::e2m1fn) throw UsageError("--fp4x2 applies to --format e2m1fn only");
  E8m0Decode dm;
  try {
    dm = parse_e8m0_decode(o.e8m0_decode);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--e8m0-decode: ") + e.what());
  }
  const std::vector<unsigned char> raw = read_file(o.in);
  const std::size_t eb = static_cast<std::size_t>(code_bytes(f));
  if (raw.size() % eb != 0)
    throw UsageError("--in: '" + o.in + "' has " + std::to_string(raw.size()) + " bytes, not a multiple of " +
                     std::to_string(eb) + " (one " + std::string(name(f)) + " code per " + std::to_string(eb) + " bytes)");
  std::vector<std::uint32_t> codes;
  if (o.fp4x2) {
    for (std::uint8_t c : unpack_fp4x2(raw, raw.size() * 2)) codes.push_back(c);
  } else {
    for (std::size_t i = 0; i < raw.size(); i += eb)
      codes.push_back(eb == 2 ? static_cast<std::uint32_t>(raw[i] | (raw[i + 1] << 8)) : raw[i]);
  }
  std::vector<float> out(codes.size());
  const std::uint32_t n = info(f).code_count();
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] >= n)
      throw UsageError("--in: byte " + std::to_string(i) + " holds " + std::to_string(codes[i]) + ", not a " +
                       std::string(name(f)) + " code (0.." + std::to_string(n - 1) + "; use --fp4x2 for packed fp4)");
    out[i] = f == Format::e8m0fnu ? decode_e8m0(static_cast<std::uint8_t>(codes[i]), dm) : decode_f32(f, codes[i]);
  }
  write_file_atomically(o.out, out.data(), out.size() * 4);
  return 0;
}

int run_modes() {
  std::printf("formats: e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu e2m1fn bf16 fp16\n");
  std::printf("modes: %s\n", std::string(mode_ids_help()).c_str());
  std::printf("e8m0 decode: e8m0-exact e8m0-shift23\nrecipes:");
  for (Recipe r : kAllRecipes) std::printf(" %s", std::string(recipe_name(r)).c_str());
  std::printf("\n");
  return 0;
}

int run_bench(const Options& o) {
  struct Item { Format f; const char* mode; };
  std::vector<Item> items;
  if (!o.format_opt.empty()) {
    const Format f = format_arg(o.format_opt, "--format");
    if (o.mode.empty()) throw UsageError("bench --format needs --mode");
    mode_arg(o.mode, f);
    items.push_back({f, o.mode.c_str()});
  } else {
    items = {{Format::e4m3fn, "rne-satfinite"}, {Format::e4m3fnuz, "rne-nonsat"}, {Format::e5m2, "torch"},
             {Format::e8m0fnu, "e8m0-ceil:satfinite"}, {Format::e2m1fn, "fp4-ties-to-zero"},
             {Format::e2m1fn, "ml_dtypes"}, {Format::bf16, "torch"}, {Format::fp16, "torch"}};
  }
  // Inputs: a fixed spread of float32 values (all exponents, both signs, some specials).
  std::vector<float> x(o.n);
  std::uint32_t s = 12345;
  for (auto& v : x) {
    s = s * 1664525u + 1013904223u;
    v = std::bit_cast<float>((s & 0x80000000u) | ((s >> 1) % 0x7F800001u));
  }
  std::printf("%-10s %-24s %16s\n", "format", "mode", "values/s/core");
  for (const Item& it : items) {
    const FastEncoder enc(it.f, parse_mode(it.mode));
    std::vector<std::uint8_t> c8(x.size());
    std::vector<std::uint16_t> c16(x.size());
    const std::clock_t c0 = std::clock();
    int reps = 0;
    do {
      if (code_bytes(it.f) == 2) enc.encode16(x, c16); else enc.encode8(x, c8);
      ++reps;
    } while (std::clock() - c0 < CLOCKS_PER_SEC / 2);
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    std::printf("%-10s %-24s %16.3g\n", std::string(name(it.f)).c_str(), it.mode, static_cast<double>(reps) * x.size() / cpu);
  }
  return 0;
}

const Registrar reg{"formats", "Inspect and convert low-precision number formats (see docs/formats.md)", [](dsv4::cli::Args& sub) -> Action {
  auto o = std::make_shared<Options>();
  sub.require_subcommand(1);
  dsv4::cli::Args* show = sub.add_subcommand("show", "Value and class of one code: formats show e4m3fnuz 0x7f");
  show->add_option("FORMAT", o->format_pos, "Format name")->required();
  show->add_option("CODE", o->value_pos, "Code (0x.. hex or decimal)")->required();
  show->add_option("--e8m0-decode", o->e8m0_decode, "e8m0-exact (default) or e8m0-shift23");
  dsv4::cli::Args* enc = sub.add_subcommand("encode", "Encode one value (FORMAT VALUE) or a float32 file (--format --in --out)");
  enc->add_option("FORMAT", o->format_pos, "Format name (single-value form)");
  enc->add_option("VALUE", o->value_pos, "Value: a number, inf, nan, or f32:<hex bits> (single-value form)");
  enc->add_option("--mode", o->mode, "Conversion mode (required; see `formats modes`)")->required();
  enc->add_option("--format", o->format_opt, "Format name (bulk form)");
  enc->add_option("--in", o->in, "float32 little-endian input file (bulk form)");
  enc->add_option("--out", o->out, "Output: one byte per code, two (little-endian) for bf16/fp16");
  enc->add_flag("--fp4x2", o->fp4x2, "e2m1fn: pack two codes per byte, element 0 in the low nibble");
  dsv4::cli::Args* dec = sub.add_subcommand("decode", "Decode a code file to float32 little-endian");
  dec->add_option("--format", o->format_opt, "Format name")->required();
  dec->add_option("--in", o->in, "Code file (one byte per code, two for bf16/fp16)")->required();
  dec->add_option("--out", o->out, "float32 little-endian output file")->required();
  dec->add_flag("--fp4x2", o->fp4x2, "e2m1fn: input packs two codes per byte, element 0 in the low nibble");
  dec->add_option("--e8m0-decode", o->e8m0_decode, "e8m0-exact (default) or e8m0-shift23");
  dsv4::cli::Args* modes = sub.add_subcommand("modes", "List format, mode and recipe names");
  dsv4::cli::Args* bench = sub.add_subcommand("bench", "Throughput of the fast encoders (values per second per core)");
  bench->add_option("--format", o->format_opt, "Format (default: a list of main format/mode pairs)");
  bench->add_option("--mode", o->mode, "Mode (with --format)");
  bench->add_option("--n", o->n, "Values per batch (default 2^24)");
  return [o, show, enc, dec, modes, bench]() -> int {
    if (show->parsed()) return run_show(*o);
    if (enc->parsed()) {
      if (!o->in.empty() || !o->out.empty() || !o->format_opt.empty()) {
        if (o->in.empty()) throw UsageError("bulk encode needs --in");
        return run_encode_bulk(*o);
      }
      if (o->format_pos.empty() || o->value_pos.empty()) throw UsageError("encode needs FORMAT VALUE, or --format --in --out");
      return run_encode_one(*o);
    }
    if (dec->parsed()) return run_decode_bulk(*o);
    if (modes->parsed()) return run_modes();
    if (bench->parsed()) return run_bench(*o);
    throw UsageError("formats needs a subcommand: show, encode, decode, modes or bench");
  };
}};

}  // namespace
}  // namespace dsv4::cli
