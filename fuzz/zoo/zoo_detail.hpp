// Internals shared by the zoo's entry files: the entry lists and the two judging helpers (a registry op
// run through the implementation under test, and a mutant's outputs judged by the oracle).
#pragma once
#include <string>
#include <vector>

#include "fuzz/zoo/zoo.hpp"
#include "oracle/judge.hpp"

namespace dsv4::fuzz::zoo::detail {

std::vector<ZooEntry> skinny_entries();     // 1, 2 (zoo_skinny.cpp)
std::vector<ZooEntry> stream_entries();     // 3, 4 (zoo_streams.cpp)
std::vector<ZooEntry> kernel_entries();     // 5, 9 (zoo_kernels.cpp)
std::vector<ZooEntry> attention_kernel_entries();  // 13..20 (zoo_attention_kernels.cpp)
std::vector<ZooEntry> quant_kernel_entries();      // 21..27 (zoo_quant_kernels.cpp)
std::vector<ZooEntry> format_entries();     // 6, 7, 8 (mutant_formats.cpp)
std::vector<ZooEntry> preload_entries();    // 10 (mutant_preload.cpp)
std::vector<ZooEntry> wave_reduction_entries();  // 9r (mutant_wave_reduction.cpp)
std::vector<ZooEntry> attention_entries();  // 11, 12 (mutant_attention.cpp)
std::vector<ZooEntry> hipsim_entries();     // H1..H9, tests/hipsim executables (zoo_hipsim.cpp)

// Generates op `op`'s case for `shape` from `seed`, runs the kernel of this backend with `variant` (and
// sim wave size `wave`, 0 = profile's), and turns the oracle verdict and the sim report into findings.
Probe probe_kernel(const std::string& op, const Json& shape, std::uint64_t seed, const std::string& variant,
                   int wave = 0);

// One case of a kernel-variant entry: the op generator's shape (may hold the fuzz layer's "values" and
// "attr.*" keys), the case seed, and the sim wave size (0 = the profile's).
struct KernelCase {
  Json shape;
  std::uint64_t seed = 0;
  int wave = 0;
};
// A planted kernel variant as a zoo entry: its id, the op and variant, what it is, the expected detector
// and diagnosis substrings, its cases, and a note appended to the entry's enable text
// ("<op> kernel variant <variant> <note>").
struct KernelVariantBug {
  std::string id, op, variant, title, known_bugs_ref;
  Detector expected;
  std::vector<std::string> diagnosis_must_contain;
  std::string enable_note;
  std::vector<KernelCase> cases;
};
// The entry whose probe runs b.op's kernel with b.variant (buggy) or "default" (clean) on each case through
// probe_kernel. Case labels: the shape JSON, prefixed by "wave<N> " when the case sets a wave.
ZooEntry kernel_variant_entry(const KernelVariantBug& b);
std::vector<ZooEntry> kernel_variant_entries(const std::vector<KernelVariantBug>& bugs);

// Findings of a judge result: NaN/inf placement mismatches -> nan_placement; other failures ->
// `value_detector` (oracle_localisation or exact_bits), each with the oracle's summary line.
void add_verdict_findings(const oracle::JudgeResult& r, Detector value_detector, Probe& p);

// Judges a mutant's outputs against expected ones with one oracle policy for every output, through a
// throwaway descriptor named `name` (the same oracle::judge a kernel goes through).
oracle::JudgeResult judge_mutant(const std::string& name, const Outputs& expected, const Outputs& actual,
                                 const OracleSpec& spec);

}  // namespace dsv4::fuzz::zoo::detail
