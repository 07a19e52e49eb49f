// Localisation of failing elements by row, column and plan tile. See tile_map.hpp.
#include "oracle/tile_map.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace dsv4::oracle {

View2D view_2d(const Shape& s, int row_dims) {
  View2D v;
  int r = static_cast<int>(s.size());
  if (r == 0) return v;
  int rd = row_dims < 0 ? std::max(1, r - 1) : std::min(row_dims, r);
  for (int i = 0; i < r; ++i) (i < rd ? v.rows : v.cols) *= s[i];
  return v;
}

std::string compact_ranges(const std::vector<std::int64_t>& v, std::size_t max_ranges) {
  std::string out;
  std::size_t n = 0, i = 0;
  while (i < v.size()) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (n == max_ranges) {
      std::size_t rest = 0;
      for (std::size_t k = i; k < v.size(); ++rest) {
        std::size_t m = k;
        while (m + 1 < v.size() && v[m + 1] == v[m] + 1) ++m;
        k = m + 1;
      }
      out += fmt::format(", ... (+{} more)", rest);
      break;
    }
    out += (out.empty() ? "" : ", ") + (i == j ? fmt::format("{}", v[i]) : fmt::format("{}..{}", v[i], v[j]));
    ++n;
    i = j + 1;
  }
  return out;
}

namespace {

std::vector<std::int64_t> uniq(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string tiles_phrase(const TileAxis& ax, const std::vector<std::int64_t>& tiles) {
  if (ax.name.empty() || (ax.tile <= 0 && !ax.owner)) return "";
  return fmt::format(" ({}{} {})", ax.name, tiles.size() == 1 ? "" : "s", compact_ranges(tiles));
}

}  // namespace

Localisation localise(const Shape& shape, const std::vector<std::int64_t>& failing, const TileMap* map) {
  Localisation L;
  View2D v = view_2d(shape, map ? map->row_dims : -1);
  L.row_failures.assign(static_cast<std::size_t>(v.rows), 0);
  if (failing.empty()) {
    L.summary = "no failing elements";
    return L;
  }
  TileAxis none;
  const TileAxis& ra = map ? map->rows : none;
  const TileAxis& ca = map ? map->cols : none;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> per_tile;
  std::vector<std::int64_t> rows, cols, rts, cts;
  for (std::int64_t li : failing) {
    std::int64_t r = li / v.cols, c = li % v.cols;
    rows.push_back(r);
    cols.push_back(c);
    ++L.row_failures[static_cast<std::size_t>(r)];
    std::int64_t rt = ra.tile_of(r), ct = ca.tile_of(c);
    rts.push_back(rt);
    cts.push_back(ct);
    ++per_tile[{rt, ct}];
  }
  L.rows = uniq(rows);
  L.cols = uniq(cols);
  L.row_tiles = uniq(rts);
  L.col_tiles = uniq(cts);
  for (auto& [k, n] : per_tile) L.tiles.push_back({k.first, k.second, n});
  std::stable_sort(L.tiles.begin(), L.tiles.end(), [](auto& a, auto& b) { return a.failures > b.failures; });

  std::string rows_part = static_cast<std::int64_t>(L.rows.size()) == v.rows
                              ? "all rows" : (L.rows.size() == 1 ? "row " : "rows ") + compact_ranges(L.rows);
  rows_part += tiles_phrase(ra, L.row_tiles);
  std::string cols_part = static_cast<std::int64_t>(L.cols.size()) == v.cols
                              ? "all columns" : (L.cols.size() == 1 ? "column " : "columns ") + compact_ranges(L.cols);
  cols_part += tiles_phrase(ca, L.col_tiles);
  std::size_t n = failing.size();
  L.summary = n == 1 ? fmt::format("the 1 mismatch lies in {}, {}", rows_part, cols_part)
                     : fmt::format("all {} mismatches lie in {}, {}", n, rows_part, cols_part);
  // Density within the failing rows x columns rectangle: 100% means whole rows/columns are wrong.
  double cells = static_cast<double>(L.rows.size()) * static_cast<double>(L.cols.size());
  L.summary += fmt::format(" ({:.1f}% of that region fails)", 100.0 * static_cast<double>(n) / cells);
  if (map && (map->k_shards > 0 || !map->plan.empty())) {
    L.summary += "; plan: " + (map->plan.empty() ? std::string("-") : map->plan);
    if (map->k_shards > 0) L.summary += fmt::format(", {} K-shards of {}", map->k_shards, map->k_shard_size);
  }
  return L;
}

}  // namespace dsv4::oracle
