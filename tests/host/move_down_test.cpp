#include "host/move_down.hpp"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

namespace rmgsort {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// A buffer whose every 8-byte word holds its own index, so that any byte out of place shows.
std::vector<std::byte> numbered_bytes(std::size_t bytes) {
  std::vector<std::byte> buffer(bytes);
  for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
    const std::uint64_t word = i / 8 * 0x9E3779B97F4A7C15ull + 1;
    std::memcpy(buffer.data() + i, &word, 8);
  }
  return buffer;
}

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;  // (offset, bytes) in a buffer

// Where SPANS are, as pieces of BUFFER.
std::vector<MovePiece> pieces_in(std::vector<std::byte>& buffer, const Spans& spans) {
  std::vector<MovePiece> pieces;
  for (const auto& [offset, bytes] : spans) pieces.push_back({buffer.data() + offset, bytes});
  return pieces;
}

// Moves SPANS (offset, bytes) of a numbered buffer of BYTES to DESTINATION on, with THREADS, and
// expects what a loop of memmove gives.
void expect_as_memmove(std::size_t bytes, std::size_t destination,
                       const Spans& spans, int threads) {
  std::vector<std::byte> expected = numbered_bytes(bytes);
  std::size_t total = 0;
  for (const auto& [offset, length] : spans) {
    std::memmove(expected.data() + destination + total, expected.data() + offset, length);
    total += length;
  }
  std::vector<std::byte> moved = numbered_bytes(bytes);
  const std::vector<MovePiece> pieces = pieces_in(moved, spans);
  tbb::task_arena(threads).execute([&] { move_down(moved.data() + destination, pieces); });
  ASSERT_EQ(std::memcmp(moved.data() + destination, expected.data() + destination, total), 0)
      << total << " bytes from " << spans.size() << " pieces to offset " << destination << " on " << threads
      << " threads";
}

TEST(MoveDownTest, OneRangeBySmallShifts) {
  // (Below 1 MiB, groups copying aside; from 1 MiB on, windows as long as the shift.)
  for (const std::size_t shift : {std::size_t{0}, std::size_t{1}, std::size_t{8}, std::size_t{4096}, kMiB - 1, kMiB,
                                  kMiB + 1, 3 * kMiB + 5})
    expect_as_memmove(48 * kMiB, 0, {{shift, 48 * kMiB - shift}}, 8);
}

TEST(MoveDownTest, OneRangeByAShiftLargerThanTheScratch) {
  // Half the buffer moves down by the other half: every group's bytes lie above its destination.
  expect_as_memmove(200 * kMiB, 3, {{100 * kMiB + 7, 100 * kMiB - 7}}, 4);
}

TEST(MoveDownTest, BlocksCompactedAsUniqueLeavesThem) {
  // Blocks of 512 KiB each keep a random prefix (a round --unique filtered), from a few dropped
  // records per block to most of them.
  for (const std::size_t most_dropped : {std::size_t{64}, std::size_t{512 * 1024}}) {
    std::mt19937_64 random(most_dropped);
    constexpr std::size_t kBlock = 512 * 1024;
    Spans spans;
    for (std::size_t begin = 0; begin < 96 * kMiB; begin += kBlock) {
      const std::size_t dropped = random() % (most_dropped + 1) / 8 * 8;
      spans.emplace_back(begin, kBlock - dropped);
    }
    expect_as_memmove(96 * kMiB, 0, spans, 8);
  }
}

TEST(MoveDownTest, ShiftsGrowingPastTheWindowsThreshold) {
  // Gaps of 64 KiB between pieces of 1 MiB: the shift passes 1 MiB after 16 pieces, then grows.
  Spans spans;
  for (std::size_t begin = 4096; begin + kMiB <= 120 * kMiB; begin += kMiB + 64 * 1024) spans.emplace_back(begin, kMiB);
  expect_as_memmove(120 * kMiB, 0, spans, 8);
  expect_as_memmove(120 * kMiB, 0, spans, 3);
}

TEST(MoveDownTest, EmptyAndTinyPiecesAmongLargeOnes) {
  expect_as_memmove(40 * kMiB, 16,
                    {{16, 0}, {24, 8}, {100, 10 * kMiB}, {10 * kMiB + 200, 0}, {10 * kMiB + 300, 29 * kMiB}}, 6);
  expect_as_memmove(1024, 0, {}, 4);
  expect_as_memmove(1024, 0, {{0, 0}}, 4);
}

TEST(MoveDownTest, OneThreadAndFewBytesMoveSerially) {
  expect_as_memmove(16 * kMiB, 0, {{8, 16 * kMiB - 8}}, 1);
  expect_as_memmove(4096, 0, {{8, 1000}, {2000, 2000}}, 8);
}

}  // namespace
}  // namespace rmgsort
