#include "gpu/copy_in_pieces.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "gpu/gpu_policy.hpp"

namespace rmgsort {

std::vector<std::uint64_t> copy_in_piece_ends(std::uint64_t keys, int key_bytes) {
  using namespace gpu_policy;
  RMGSORT_EXPECTS(key_bytes == 4 || key_bytes == 8, "copy_in_piece_ends: keys of 4 or 8 bytes");
  std::vector<std::uint64_t> ends;
  if (keys == 0) return ends;
  const std::uint64_t per_block = keys_per_block(key_bytes);
  const std::uint64_t blocks = blocks_for(keys, key_bytes);
  const std::uint64_t block_bytes = per_block * std::uint64_t(key_bytes);
  const std::uint64_t min_blocks = std::max<std::uint64_t>(1, kMinCopyInPieceBytes / block_bytes);
  const std::uint64_t pieces = std::clamp<std::uint64_t>(blocks / min_blocks, 1, kCopyInPieces);
  for (std::uint64_t p = 1; p < pieces; ++p) ends.push_back(blocks * p / pieces * per_block);
  ends.push_back(keys);
  return ends;
}

}  // namespace rmgsort
