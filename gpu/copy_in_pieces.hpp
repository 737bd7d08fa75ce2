// The copy in of a GPU's chunk, in pieces, so that the first partitioning pass counts each piece
// (bare keys, or the keys split out of records carried as pairs) while the next one copies
// (gpu/in_core_copy_in.cpp, gpu/in_core_partition_pass.cu). Pure host code.
#pragma once

#include <cstdint>
#include <vector>

namespace rmgsort {

// The pieces' ends, in keys, over a chunk of `keys` keys of `key_bytes` bytes: increasing, the last
// one `keys`, every other a whole number of the partitioning kernels' blocks (so that a piece's
// blocks are whole and read only keys that have arrived); at most gpu_policy::kCopyInPieces of
// them, each but the last at least gpu_policy::kMinCopyInPieceBytes. Empty for no keys.
[[nodiscard]] std::vector<std::uint64_t> copy_in_piece_ends(std::uint64_t keys, int key_bytes);

}  // namespace rmgsort
