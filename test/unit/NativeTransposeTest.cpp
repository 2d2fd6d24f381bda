//===- NativeTransposeTest.cpp - the in-register transposes ---------------===//
//
// transposeCells (runtime/native/lib/Transpose.h) on every block side the
// host offers, for 4- and 8-byte cells, blocks of several sizes, rows and
// columns at unaligned and scattered addresses, with and without streaming
// stores: every cell is compared with the definition, out[c][r] = in[r][c],
// and the bytes around every output column must stay untouched.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/native/lib/Transpose.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>
#include <vector>

using namespace mapc::native;

namespace {

/// The sides to test for `cell`: the host's best and the AVX2 one.
std::vector<unsigned> sidesFor(size_t cell) {
  std::vector<unsigned> sides;
  if (unsigned s = transposeSide(cell))
    sides.push_back(s);
  unsigned avx2 = cell == 4 ? 8 : 4;
  if (hostHasAvx2Transpose() && (sides.empty() || sides[0] != avx2))
    sides.push_back(avx2);
  return sides;
}

TEST(NativeTranspose, EverySideMatchesTheDefinition) {
  std::mt19937_64 rng(1210);
  unsigned cases = 0;
  for (size_t cell : {size_t(4), size_t(8)})
    for (unsigned side : sidesFor(cell))
      for (int trial = 0; trial < 40; ++trial) {
        size_t rows = side * (1 + rng() % 5), cols = side * (1 + rng() % 5);
        bool stream = rng() % 2;
        // Rows with a random pitch and shift; columns scattered in one
        // buffer, each with a guard band, half of them 64-byte aligned.
        size_t pitch = cols * cell + cell * (rng() % 5);
        std::vector<uint8_t> in(rows * pitch + 64);
        for (uint8_t &b : in)
          b = uint8_t(rng());
        size_t shift = cell * (rng() % 4);
        std::vector<const uint8_t *> inRows(rows);
        for (size_t r = 0; r < rows; ++r)
          inRows[r] = in.data() + shift + r * pitch;
        size_t colBytes = rows * cell, slot = (colBytes + 191) / 64 * 64;
        std::vector<uint8_t> outBuf(cols * slot + 64, 0xA5);
        uint8_t *base = outBuf.data() + (64 - uintptr_t(outBuf.data()) % 64);
        std::vector<size_t> order(cols);
        for (size_t c = 0; c < cols; ++c)
          order[c] = c;
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<uint8_t *> outCols(cols);
        for (size_t c = 0; c < cols; ++c)
          outCols[c] = base + order[c] * slot + 64 + (c % 2 ? cell : 0);
        transposeCells(cell, side, inRows.data(), outCols.data(), rows, cols,
                       stream);
        for (size_t c = 0; c < cols; ++c) {
          for (size_t r = 0; r < rows; ++r)
            ASSERT_EQ(0, std::memcmp(outCols[c] + r * cell,
                                     inRows[r] + c * cell, cell))
                << "cell " << cell << " side " << side << " row " << r
                << " column " << c;
          EXPECT_EQ(outCols[c][-1], 0xA5);
          EXPECT_EQ(outCols[c][colBytes], 0xA5);
        }
        ++cases;
      }
  // This host has at least the AVX2 paths (the x86-64 machines mapc is
  // built on do); elsewhere there is nothing to test.
  if (hostHasAvx2Transpose()) {
    EXPECT_GE(cases, 80u); // 160 with AVX-512, unless capped
  }
}

} // namespace
