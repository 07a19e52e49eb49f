// Error heatmap PNG (stb_image_write; the implementation comes from libstb.so, so
// STB_IMAGE_WRITE_IMPLEMENTATION is not defined anywhere in dsv4check). See report.hpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include <stb_image_write.h>

#include "oracle/report.hpp"

namespace dsv4::oracle {

namespace {

struct Rgb { unsigned char r, g, b; };

Rgb lerp(Rgb a, Rgb b, double t) {
  t = std::clamp(t, 0.0, 1.0);
  auto m = [&](unsigned char x, unsigned char y) { return static_cast<unsigned char>(std::lround(x + (y - x) * t)); };
  return {m(a.r, b.r), m(a.g, b.g), m(a.b, b.b)};
}

// Severity per element: kinds above value dominate; otherwise the ratio.
Rgb colour(float ratio, std::uint8_t kind) {
  auto k = static_cast<FailKind>(kind);
  if (k == FailKind::unwritten) return {255, 255, 255};
  if (k == FailKind::nan_mismatch || k == FailKind::inf_mismatch || k == FailKind::index_set) return {255, 0, 255};
  if (ratio <= 0) return {8, 8, 64};
  double l = std::log10(static_cast<double>(ratio));  // [-3, 0]: within bound; (0, 3]: beyond
  if (l <= 0) return lerp({16, 32, 128}, {32, 192, 64}, (l + 3) / 3);
  return lerp({220, 40, 20}, {255, 240, 0}, l / 3);
}

// Larger is worse, for max-pooling.
double severity(float ratio, std::uint8_t kind) {
  if (static_cast<FailKind>(kind) != FailKind::none && static_cast<FailKind>(kind) != FailKind::value) return 1e30 + kind;
  return std::isnan(ratio) ? 1e29 : ratio;
}

}  // namespace

bool write_heatmap_png(const Verdict& v, const std::string& path, int max_side) {
  const ErrorMap& m = v.map;
  if (m.rows <= 0 || m.cols <= 0 || m.ratio.empty()) return false;
  max_side = std::max(16, max_side);
  // Pool factor (elements per pixel) and enlargement (pixels per element).
  std::int64_t pr = (m.rows + max_side - 1) / max_side, pc = (m.cols + max_side - 1) / max_side;
  std::int64_t h = (m.rows + pr - 1) / pr, w = (m.cols + pc - 1) / pc;
  std::int64_t up = std::max<std::int64_t>(1, std::min<std::int64_t>(256 / std::max(h, w), 16));
  std::vector<unsigned char> img(static_cast<std::size_t>(h * up * w * up * 3));
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x) {
      float best_r = 0;
      std::uint8_t best_k = 0;
      double best_s = -1;
      for (std::int64_t r = y * pr; r < std::min(m.rows, (y + 1) * pr); ++r)
        for (std::int64_t c = x * pc; c < std::min(m.cols, (x + 1) * pc); ++c) {
          auto i = static_cast<std::size_t>(r * m.cols + c);
          double s = severity(m.ratio[i], m.kind[i]);
          if (s > best_s) best_s = s, best_r = m.ratio[i], best_k = m.kind[i];
        }
      Rgb px = colour(best_r, best_k);
      for (std::int64_t dy = 0; dy < up; ++dy)
        for (std::int64_t dx = 0; dx < up; ++dx) {
          auto o = static_cast<std::size_t>(((y * up + dy) * w * up + x * up + dx) * 3);
          img[o] = px.r, img[o + 1] = px.g, img[o + 2] = px.b;
        }
    }
  int W = static_cast<int>(w * up), H = static_cast<int>(h * up);
  return stbi_write_png(path.c_str(), W, H, 3, img.data(), W * 3) != 0;
}

}  // namespace dsv4::oracle
