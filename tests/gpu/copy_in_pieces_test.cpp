// The pieces of a GPU's copy in of bare keys (pure host code): each but the last ends on a block of
// the partitioning kernels, so that the first pass's histograms of a piece read only keys that
// have arrived; they cover the chunk, in order, within the policy's count and size.
#include "gpu/copy_in_pieces.hpp"

#include <gtest/gtest.h>

#include <string>

#include "gpu/gpu_policy.hpp"

namespace rmgsort {
namespace {

using gpu_policy::kCopyInPieces;
using gpu_policy::kMinCopyInPieceBytes;

std::uint64_t block_keys(int key_bytes) { return gpu_policy::keys_per_block(key_bytes); }

// Every property the copy and the histograms rely on.
void expect_pieces(std::uint64_t keys, int key_bytes) {
  const std::string what = std::to_string(keys) + " keys of " + std::to_string(key_bytes) + " bytes";
  const std::vector<std::uint64_t> ends = copy_in_piece_ends(keys, key_bytes);
  ASSERT_FALSE(ends.empty()) << what;
  ASSERT_LE(ends.size(), kCopyInPieces) << what;
  EXPECT_EQ(ends.back(), keys) << what;
  std::uint64_t begin = 0;
  for (std::size_t p = 0; p + 1 < ends.size(); ++p) {
    EXPECT_EQ(ends[p] % block_keys(key_bytes), 0u) << what << ", piece " << p;
    EXPECT_GE((ends[p] - begin) * std::uint64_t(key_bytes), kMinCopyInPieceBytes) << what << ", piece " << p;
    begin = ends[p];
  }
  EXPECT_GT(keys, begin) << what << ": the last piece is not empty";
}

TEST(CopyInPiecesTest, NoKeysNoPieces) {
  EXPECT_TRUE(copy_in_piece_ends(0, 4).empty());
  EXPECT_TRUE(copy_in_piece_ends(0, 8).empty());
}

TEST(CopyInPiecesTest, ChunksBelowTwoPiecesCopyInOne) {
  for (const int bytes : {4, 8}) {
    for (const std::uint64_t keys : {std::uint64_t{1}, block_keys(bytes) - 1, block_keys(bytes) + 1,
                                     2 * kMinCopyInPieceBytes / std::uint64_t(bytes) - block_keys(bytes)}) {
      EXPECT_EQ(copy_in_piece_ends(keys, bytes), std::vector<std::uint64_t>{keys}) << keys << " keys of " << bytes;
    }
  }
}

TEST(CopyInPiecesTest, LargerChunksSplitOnBlocksWithinTheLimits) {
  for (const int bytes : {4, 8}) {
    const std::uint64_t two_pieces = 2 * kMinCopyInPieceBytes / std::uint64_t(bytes);
    for (const std::uint64_t keys : {two_pieces, two_pieces + 1, 3 * two_pieces - 7, std::uint64_t{1} << 30,
                                     gpu_policy::kMaxPlannedChunk}) {
      expect_pieces(keys, bytes);
    }
    EXPECT_EQ(copy_in_piece_ends(two_pieces, bytes).size(), 2u);
    EXPECT_EQ(copy_in_piece_ends(gpu_policy::kMaxPlannedChunk, bytes).size(), kCopyInPieces);
  }
}

}  // namespace
}  // namespace rmgsort
