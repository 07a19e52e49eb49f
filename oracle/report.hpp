// Reports of verdicts: a human summary (first line: the verdict; then counts, localisation, worst
// elements, notes), JSON (nlohmann), and an error heatmap PNG of the 2-D view.
#pragma once
#include <string>

#include "oracle/verdict.hpp"

namespace dsv4::oracle {

std::string summary_line(const Verdict& v);           // "FAIL out: 4160/16384 ... ; all 4160 mismatches lie in ..."
std::string text_report(const Verdict& v);            // several lines
std::string text_report(const JudgeResult& r);        // "PASS op" / "FAIL op" then each output
Json to_json(const Verdict& v);
Json to_json(const JudgeResult& r);

// Heatmap of log10(error/bound) over the 2-D view: dark blue (error 0) through green (ratio 1e-3..1)
// to red/yellow above the bound (ratio 1..1e3); NaN/inf mismatches magenta, unwritten white.
// Large views are max-pooled to at most max_side pixels per side; small ones are enlarged by an
// integer factor. Returns false (and writes nothing) when the verdict has no error map.
bool write_heatmap_png(const Verdict& v, const std::string& path, int max_side = 1024);

}  // namespace dsv4::oracle
