// Localisation: compact ranges, tiles named by the plan, N-D outputs viewed as 2-D, interleaved
// ownership.
#include <gtest/gtest.h>

#include "oracle/tile_map.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

TEST(TileMap, CompactRanges) {
  EXPECT_EQ(compact_ranges({}), "");
  EXPECT_EQ(compact_ranges({3}), "3");
  EXPECT_EQ(compact_ranges({64, 65, 66, 67}), "64..67");
  EXPECT_EQ(compact_ranges({0, 1, 5, 7, 8}), "0..1, 5, 7..8");
  EXPECT_EQ(compact_ranges({0, 2, 4, 6}, 2), "0, 2, ... (+2 more)");
}

TEST(TileMap, RowsOfOneNTileAllColumns) {
  // 256 x 65 output, N-tiles of 64 rows; rows 64..127 fully wrong: 64 * 65 = 4160 mismatches.
  std::vector<std::int64_t> fail;
  for (std::int64_t r = 64; r < 128; ++r) for (std::int64_t c = 0; c < 65; ++c) fail.push_back(r * 65 + c);
  TileMap m;
  m.rows = {64, "N-tile", {}};
  m.cols = {16, "M-tile", {}};
  Localisation L = localise({256, 65}, fail, &m);
  EXPECT_NE(L.summary.find("all 4160 mismatches lie in rows 64..127 (N-tile 1), all columns (M-tiles 0..4)"),
            std::string::npos) << L.summary;
  EXPECT_EQ(L.row_tiles, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(L.row_failures[64], 65);
  EXPECT_EQ(L.row_failures[0], 0);
}

TEST(TileMap, InterleavedOwnershipAndNdView) {
  // [4 tokens-blocks, 32, 8] viewed as rows = 4*32 with row_dims 2; rows with (n mod 32) >= 16 are N-tile 1.
  TileMap m;
  m.row_dims = 2;
  m.rows.name = "N-tile";
  m.rows.owner = [](std::int64_t r) { return (r % 32) >= 16 ? 1 : 0; };
  std::vector<std::int64_t> fail = {16 * 8 + 3, 48 * 8 + 0, 127 * 8 + 7};
  Localisation L = localise({4, 32, 8}, fail, &m);
  EXPECT_EQ(L.rows, (std::vector<std::int64_t>{16, 48, 127}));
  EXPECT_EQ(L.row_tiles, (std::vector<std::int64_t>{1}));
  EXPECT_NE(L.summary.find("(N-tile 1)"), std::string::npos) << L.summary;
  EXPECT_EQ(view_2d({4, 32, 8}, -1).rows, 128);
  EXPECT_EQ(view_2d({4, 32, 8}, 1).cols, 256);
  EXPECT_EQ(view_2d({7}, -1).rows, 7);
}
