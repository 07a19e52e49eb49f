// TileMap: how a kernel's plan divides an output among tiles (row tiles such as "N-tile", column
// tiles such as "M-tile", plus K-shard facts for context), and localisation: grouping failing
// elements by tile and printing compact ranges ("all 4160 mismatches lie in rows 64..127 (N-tile 1),
// all columns"). Outputs of rank > 2 are viewed as 2-D: the first row_dims dimensions form rows,
// the rest columns (default: all but the last dimension are rows).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/tensor/tensor.hpp"

namespace dsv4::oracle {

struct TileAxis {
  std::int64_t tile = 0;   // elements per tile along this axis; 0 = one tile spans the axis
  std::string name;        // e.g. "N-tile", "M-tile", "head"
  // Optional ownership other than contiguous blocks (e.g. interleaved row ownership); returns the
  // tile number of a row/column. When set, `tile` is ignored.
  std::function<std::int64_t(std::int64_t)> owner;
  std::int64_t tile_of(std::int64_t i) const { return owner ? owner(i) : (tile > 0 ? i / tile : 0); }
};

struct TileMap {
  TileAxis rows, cols;
  int row_dims = -1;              // leading dimensions that form the row axis; -1 = rank-1 (min 1)
  std::int64_t k_shards = 0;      // number of K-shards the plan splits the reduction into (context only)
  std::int64_t k_shard_size = 0;  // elements of K per shard
  std::string plan;               // free text naming the plan, e.g. "wvSplitKrc n=128 k=5248 CHUNKK=2"
  std::string output;             // the output it describes; empty = every output
};

// The 2-D view (rows, cols) of a shape under row_dims (-1 = rank-1, at least 1 for rank >= 1).
struct View2D { std::int64_t rows = 1, cols = 1; };
View2D view_2d(const Shape& s, int row_dims = -1);

// "3", "64..127", "0..15, 32..47, 64..79" (at most max_ranges ranges, then "... (+N more)").
std::string compact_ranges(const std::vector<std::int64_t>& sorted_unique, std::size_t max_ranges = 8);

struct TileCount {
  std::int64_t row_tile, col_tile, failures;
};

struct Localisation {
  std::string summary;                  // one sentence
  std::vector<std::int64_t> rows;       // failing rows (sorted, unique)
  std::vector<std::int64_t> cols;       // failing columns
  std::vector<std::int64_t> row_tiles;  // failing row tiles
  std::vector<std::int64_t> col_tiles;
  std::vector<TileCount> tiles;         // per (row tile, col tile) failure counts, largest first
  std::vector<std::int64_t> row_failures;  // failures per row (size = rows of the view)
};

// Groups failing linear indices (row-major over `shape`) by row, column and tile. `map` may be null
// (then rows and columns only).
Localisation localise(const Shape& shape, const std::vector<std::int64_t>& failing_linear, const TileMap* map);

}  // namespace dsv4::oracle
