// The partitioning kernels of one pass over one part of a GPU's buffer (thesis §4.1-4.2). Every
// function only enqueues work on `stream` (asynchronous) and checks the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/key_order.hpp"

namespace rmgsort {

// How the partitioning kernels see their input: keys already encoded, or the caller's raw keys of
// type T, encoded on the fly in `order` (the first pass: the transform costs no pass of its own).
enum class KeyInput { encoded, raw_ascending, raw_descending };

// Block-local histograms of the digit (radix >> shift) & 255 over keys[0, count), written
// digit-major: block_counts[digit * blocks + block], blocks = gpu_policy::blocks_for(count).
template <class T>
void block_histograms_async(const RadixBits<T>* keys, std::uint32_t count, int shift, KeyInput input,
                            std::uint32_t* block_counts, cudaStream_t stream);
// The same histograms of blocks [first_block, first_block + blocks) only (of the blocks over
// keys[0, count)): the first pass counts each piece of the copy in as it arrives.
template <class T>
void block_histograms_of_blocks_async(const RadixBits<T>* keys, std::uint32_t count, int shift, KeyInput input,
                                      std::uint32_t* block_counts, std::uint32_t first_block, std::uint32_t blocks,
                                      cudaStream_t stream);

// Moves keys[0, count) to out[offset(digit, block) + rank within the block], where block_offsets
// holds the exclusive scan of the digit-major block histograms: the keys come out grouped by digit,
// always encoded.
template <class T>
void scatter_async(const RadixBits<T>* keys, std::uint32_t count, int shift, KeyInput input,
                   const std::uint32_t* block_offsets, RadixBits<T>* out, cudaStream_t stream);

// The scatter of pairs (records the GPUs carry whole, core/record_pair.hpp): keys already encoded
// and their values move together, stably (the keys of one digit keep their order). `value_parts`:
// how a block stages its values in shared memory, whole (1) or in halves (2, for GPUs whose blocks
// may not take the whole tile); 0 (the sort's choice) picks 1 wherever the device allows it.
template <class Bits>
void scatter_pairs_async(const Bits* keys, const std::uint64_t* values, std::uint32_t count, int shift,
                         const std::uint32_t* block_offsets, Bits* out_keys, std::uint64_t* out_values,
                         cudaStream_t stream, int value_parts = 0);

}  // namespace rmgsort
