// Rotary position embedding on float64 values, with the pairing as a named variant (ops.md §7.3):
//   interleaved (GPT-J): pairs (2i, 2i+1);   neox: pairs (i, i + rope_dim/2);   i < rope_dim/2.
// Forward rotation (a, b) -> (a·c − b·s, a·s + b·c); inverse (a, b) -> (a·c + b·s, b·c − a·s),
// with c, s = cos/sin of the pair's angle. The cos/sin cache layout is [cos(rope_dim/2) ‖ sin(rope_dim/2)].
#pragma once
#include <string>

namespace dsv4::rope {

enum class Pairing { interleaved, neox };

Pairing parse_pairing(const std::string& s);  // "interleaved" | "neox"; throws std::invalid_argument

// Rotates x[0..rope_dim) in place; cos_sin points at one cache row [cos(rope_dim/2) ‖ sin(rope_dim/2)].
void apply(double* x, int rope_dim, const double* cos_sin, Pairing pairing, bool inverse);

}  // namespace dsv4::rope
