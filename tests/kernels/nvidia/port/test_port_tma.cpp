// kernels/nvidia/port/tma.hpp and make_tensor_map_2d on whatever backend this build has (cuda: TMA on an sm_90 device; sim:
// the copy emulation): boxes inside the tensor, overlapping its row and column ends (zeros there), with a padded
// row stride, two phases of one barrier; every element compared with the host tensor (distinct codes, so a
// misplaced element cannot pass). Bad maps are refused with the requirement named.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"
#include "kernels/nvidia/port/tensor_map.hpp"
#include "kernels/port/sim.hpp"
#include "tests/kernels/nvidia/port/sm90_feature_test.hpp"
#include "tests/kernels/nvidia/port/tma_test_kernel.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {
namespace {
namespace port = dsv4::port;

using PortTma = Sm90FeatureTest;

struct Box {
  int col, row;
};

// Copies two boxes of a rows x cols tensor (row stride `stride` elements) and counts wrong elements.
int run_boxes(std::int64_t rows, std::int64_t cols, std::int64_t stride, int box_rows, Box b1, Box b2,
              std::mt19937_64& rng, int misuse = 0) {
  std::vector<std::uint16_t> host(static_cast<std::size_t>(rows * stride));
  std::uniform_int_distribution<int> code(1, 0xfffe);
  for (auto& x : host) x = static_cast<std::uint16_t>(code(rng));  // no zeros: a zero marks out-of-bounds only
  port::DeviceBuffer t = port::DeviceBuffer::from_host<std::uint16_t>(host);
  const port::TensorMap2d map = port::make_tensor_map_2d(t.data(), rows, cols, stride * 2, box_rows);
  const std::size_t n = static_cast<std::size_t>(box_rows) * 64;
  port::DeviceBuffer o1(n * 2), o2(n * 2);
  o1.memset(0xff);
  o2.memset(0xff);
  port::Stream s;
  tmak::load_box(map, box_rows, b1.col, b1.row, b2.col, b2.row, static_cast<std::uint16_t*>(o1.data()),
                 static_cast<std::uint16_t*>(o2.data()), s, misuse);
  s.synchronize();
  int bad = 0;
  for (int which = 0; which < 2; ++which) {
    const Box b = which ? b2 : b1;
    const auto got = (which ? o2 : o1).to_host<std::uint16_t>();
    for (int r = 0; r < box_rows; ++r)
      for (int j = 0; j < 64; ++j) {
        const std::int64_t gr = b.row + r, gc = b.col + j;
        const std::uint16_t want = (gr < rows && gc < cols) ? host[static_cast<std::size_t>(gr * stride + gc)] : 0;
        if (got[static_cast<std::size_t>(r * 64 + j)] != want) {
          if (bad < 3)
            ADD_FAILURE() << "box " << which << " (" << b.row << "," << b.col << ") element (" << r << "," << j
                          << "): got " << got[static_cast<std::size_t>(r * 64 + j)] << " want " << want;
          ++bad;
        }
      }
  }
  return bad;
}

TEST_F(PortTma, BoxesInsideAndAcrossTheEnds) {
  auto rng = rng_for_current_test();
  EXPECT_EQ(run_boxes(200, 1032, 1032, 64, {0, 0}, {128, 64}, rng), 0);       // inside, second phase elsewhere
  EXPECT_EQ(run_boxes(200, 1032, 1072, 128, {1024, 128}, {960, 0}, rng), 0);  // across the row end and K end
  EXPECT_EQ(run_boxes(3, 520, 520, 8, {512, 0}, {576, 0}, rng), 0);           // rows past 3; a box fully past K
  EXPECT_EQ(run_boxes(300, 64, 64, 256, {0, 256}, {0, 0}, rng), 0);           // 256-row boxes
}

// The wait alone orders the copy before every thread's reads (no block barrier between them): right data and, on
// sim, no race report. Dropping the barrier before the next copy instead is a race the sim reports.
TEST_F(PortTma, TheWaitOrdersTheCopyBeforeItsReaders) {
  auto rng = rng_for_current_test();
  EXPECT_EQ(run_boxes(200, 1032, 1032, 64, {0, 0}, {128, 64}, rng, 3), 0);
  if (port::backend() != port::Backend::sim) return;
  const port::sim::Report r = port::sim::take_report();
  EXPECT_TRUE(r.empty()) << r.to_string();
}

TEST_F(PortTma, ARefillBeforeEveryReaderIsDoneIsAHazardOnSim) {
  if (port::backend() != port::Backend::sim) GTEST_SKIP() << "on a GPU this is a silent race";
  std::vector<std::uint16_t> host(64 * 64, 1);
  port::DeviceBuffer t = port::DeviceBuffer::from_host<std::uint16_t>(host);
  const port::TensorMap2d map = port::make_tensor_map_2d(t.data(), 64, 64, 128, 64);
  port::DeviceBuffer o1(64 * 64 * 2), o2(64 * 64 * 2);
  port::Stream s;
  tmak::load_box(map, 64, 0, 0, 0, 0, static_cast<std::uint16_t*>(o1.data()), static_cast<std::uint16_t*>(o2.data()),
                 s, 4);
  s.synchronize();
  const port::sim::Report r = port::sim::take_report();
  const auto hazards = r.of_kind(port::sim::ViolationKind::lds_hazard);
  ASSERT_FALSE(hazards.empty()) << r.to_string();
  EXPECT_EQ(hazards[0].array, "tma_tile") << r.to_string();
}

// On a GPU a wait nobody completes hangs (misuse 1: the threads that wait after the copy completed block on the
// next phase while the others pass and stop at the block barrier); the sim reports the deadlock at the wait.
TEST_F(PortTma, WaitsThatNeverCompleteAreReportedOnSim) {
  if (port::backend() != port::Backend::sim) GTEST_SKIP() << "a GPU would hang (the wait traps after ~2^28 polls)";
  std::vector<std::uint16_t> host(64 * 64, 1);
  port::DeviceBuffer t = port::DeviceBuffer::from_host<std::uint16_t>(host);
  const port::TensorMap2d map = port::make_tensor_map_2d(t.data(), 64, 64, 128, 64);
  port::DeviceBuffer o1(64 * 64 * 2), o2(64 * 64 * 2);
  for (int misuse : {1, 2}) {
    port::Stream s;
    try {
      tmak::load_box(map, 64, 0, 0, 0, 0, static_cast<std::uint16_t*>(o1.data()),
                     static_cast<std::uint16_t*>(o2.data()), s, misuse);
      s.synchronize();
      ADD_FAILURE() << "misuse " << misuse << " was not reported";
    } catch (const port::Error& e) {
      EXPECT_NE(std::string(e.what()).find("mbarrier phase that never completes"), std::string::npos)
          << "misuse " << misuse << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("tma_test_kernel.kernel.cpp"), std::string::npos) << e.what();
    }
  }
  port::sim::take_report();  // the deadlocks are expected here
}

TEST_F(PortTma, BadMapsAreRefusedWithTheRequirement) {
  port::DeviceBuffer t(4096);
  auto refused = [&](const void* base, std::int64_t rows, std::int64_t cols, std::int64_t stride, int box,
                     const std::string& what) {
    try {
      port::make_tensor_map_2d(base, rows, cols, stride, box);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const port::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused(static_cast<const char*>(t.data()) + 8, 4, 64, 128, 8, "16-byte aligned");
  refused(t.data(), 4, 60, 128, 8, "multiple of 8");
  refused(t.data(), 4, 64, 120, 8, "row stride");
  refused(t.data(), 4, 64, 128, 257, "box rows");
}

// A panel map's copy: `panels` consecutive 64-column panels, each as tma_load_2d would leave it; rows past the
// end and panels past the last arrive as zeros. Counts wrong elements.
int run_panels(std::int64_t rows, std::int64_t cols, std::int64_t stride, int box_rows, int panels, int row,
               int panel0, std::mt19937_64& rng) {
  std::vector<std::uint16_t> host(static_cast<std::size_t>(rows * stride));
  std::uniform_int_distribution<int> code(1, 0xfffe);
  for (auto& x : host) x = static_cast<std::uint16_t>(code(rng));
  port::DeviceBuffer t = port::DeviceBuffer::from_host<std::uint16_t>(host);
  const port::TensorMap2d map = port::make_tensor_map_panels(t.data(), rows, cols, stride * 2, box_rows, panels);
  port::DeviceBuffer o(static_cast<std::size_t>(panels) * box_rows * 128);
  o.memset(0xff);
  port::Stream s;
  tmak::load_panels(map, box_rows, panels, row, panel0, static_cast<std::uint16_t*>(o.data()), s);
  s.synchronize();
  const auto got = o.to_host<std::uint16_t>();
  int bad = 0;
  for (int q = 0; q < panels; ++q)
    for (int r = 0; r < box_rows; ++r)
      for (int j = 0; j < 64; ++j) {
        const std::int64_t gr = row + r, gc = (std::int64_t(panel0) + q) * 64 + j;
        const std::uint16_t want = (gr < rows && gc < cols) ? host[static_cast<std::size_t>(gr * stride + gc)] : 0;
        const std::uint16_t g = got[static_cast<std::size_t>((q * box_rows + r) * 64 + j)];
        if (g != want) {
          if (bad < 3)
            ADD_FAILURE() << "panel " << q << " row " << r << " element " << j << ": got " << g << " want " << want;
          ++bad;
        }
      }
  return bad;
}

TEST_F(PortTma, PanelCopiesLandPanelAfterPanel) {
  auto rng = rng_for_current_test();
  EXPECT_EQ(run_panels(200, 1024, 1024, 64, 2, 0, 0, rng), 0);    // two panels inside
  EXPECT_EQ(run_panels(200, 1024, 1088, 16, 4, 192, 6, rng), 0);  // padded rows; rows past 200, panels 6..9 of 16
  EXPECT_EQ(run_panels(40, 512, 512, 8, 3, 32, 6, rng), 0);       // panels 6, 7 and one past the last (zeros)
}

TEST_F(PortTma, PanelMapsAndTwoDMapsAreNotInterchangeableOnSim) {
  if (port::backend() != port::Backend::sim) GTEST_SKIP() << "on a GPU the wrong copy reads the wrong bytes";
  std::vector<std::uint16_t> host(64 * 128, 1);
  port::DeviceBuffer t = port::DeviceBuffer::from_host<std::uint16_t>(host);
  port::DeviceBuffer o(2 * 64 * 128);
  const port::TensorMap2d panels = port::make_tensor_map_panels(t.data(), 64, 128, 256, 64, 2);
  const port::TensorMap2d flat = port::make_tensor_map_2d(t.data(), 64, 128, 256, 64);
  auto refused = [&](const port::TensorMap2d& map, bool wrong_copy, const std::string& what) {
    port::Stream s;
    try {
      tmak::load_panels(map, 64, 2, 0, 0, static_cast<std::uint16_t*>(o.data()), s, wrong_copy);
      s.synchronize();
      ADD_FAILURE() << "not refused: " << what;
    } catch (const port::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    port::sim::take_report();
  };
  refused(panels, true, "copy it with tma_load_panels");  // tma_load_2d of a panel map
  refused(flat, false, "copy it with tma_load_2d");        // tma_load_panels of a 2-D map
}

TEST_F(PortTma, BadPanelMapsAreRefusedWithTheRequirement) {
  port::DeviceBuffer t(4096);
  auto refused = [&](std::int64_t cols, int panels, const std::string& what) {
    try {
      port::make_tensor_map_panels(t.data(), 4, cols, 256, 8, panels);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const port::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused(96, 1, "multiple of 64");
  refused(128, 0, "panels must be in 1..8");
  refused(128, 9, "panels must be in 1..8");
}

}  // namespace
}  // namespace dsv4::test
