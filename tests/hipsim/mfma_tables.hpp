// Reads one MFMA layout table of tests/hipsim/mfma_layouts (the Matrix Instruction Calculator's --matrix-layout
// --csv output, or a CDNA4 table in the same form): for every lane and register slot, the matrix entries it holds.
// Rules of the format: lines before the "lane," header are comments; a header cell is "vR" (a 32-bit register) or
// "vR.[hi:lo]" (bits of one); a cell lists "X[r][c]" or "X[r][c].Bn" entries separated by spaces (several when a
// broadcast modifier makes one slot feed several blocks); a lane not listed holds nothing the instruction reads.
#pragma once
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

struct MfmaEntry {
  int row, col, block;
};
struct MfmaSlot {
  int lane, element;  // element: index of the value in the lane's operand (element_bits wide)
  std::vector<MfmaEntry> entries;
};

inline std::vector<MfmaSlot> read_mfma_table(const std::string& path, int element_bits) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open layout table " + path);
  std::string line;
  std::vector<int> element_of_column;
  std::vector<MfmaSlot> slots;
  while (std::getline(f, line)) {
    if (element_of_column.empty()) {
      if (line.rfind("lane,", 0) != 0) continue;
      std::stringstream h(line.substr(5));
      std::string cell;
      while (std::getline(h, cell, ',')) {
        int reg = 0, hi = 31, lo = 0;
        if (std::sscanf(cell.c_str(), "v%d.[%d:%d]", &reg, &hi, &lo) < 1)
          throw std::runtime_error("bad header cell '" + cell + "' in " + path);
        element_of_column.push_back((reg * 32 + lo) / element_bits);
      }
      continue;
    }
    std::stringstream row(line);
    std::string cell;
    if (!std::getline(row, cell, ',') || cell.empty()) continue;
    const int lane = std::stoi(cell);
    for (int c = 0; std::getline(row, cell, ','); ++c) {
      MfmaSlot s{lane, element_of_column.at(std::size_t(c)), {}};
      std::stringstream items(cell);
      std::string item;
      while (items >> item) {
        char mat = 0;
        MfmaEntry e{0, 0, 0};
        if (std::sscanf(item.c_str(), "%c[%d][%d].B%d", &mat, &e.row, &e.col, &e.block) < 3)
          throw std::runtime_error("bad entry '" + item + "' in " + path);
        s.entries.push_back(e);
      }
      if (!s.entries.empty()) slots.push_back(s);
    }
  }
  if (slots.empty()) throw std::runtime_error("no entries in layout table " + path);
  return slots;
}
