// Records to pairs on the way in, pairs to records on the way out (core/record_pair.hpp says what a
// pair holds). Records of up to 16 bytes, staged in two runs of device memory that are each too
// small for all of them: the records' bytes [0, first_bytes) at `first`, the rest at `rest`, so
// that a chunk's records fit the spare key and value buffers (a key's width plus 8 bytes per record,
// never less than the record) and go to or from the host in plain copies (a range of records in
// one or two, one per run it touches). The one record that straddles the runs is read or written
// byte by byte. Every function only enqueues work on `stream`
// (asynchronous) and checks the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "gpu/staged_records.hpp"

namespace rmgsort {

// keys[i], values[i] = the pair of record i of `records`, i < count; `Bits` is the layout's
// pair_key_type(). With positions_wanted, values[i] = first_position + i.
template <class Bits>
void split_records_async(StagedRecords<const std::byte> records, std::uint64_t count, const RecordLayout& layout,
                         SortOrder order, bool positions_wanted, std::uint64_t first_position, Bits* keys,
                         std::uint64_t* values, cudaStream_t stream);

// Record i of `records` = the record of keys[i], values[i], i < count: split_records_async undone.
template <class Bits>
void join_records_async(const Bits* keys, const std::uint64_t* values, std::uint64_t count, const RecordLayout& layout,
                        SortOrder order, bool positions_wanted, StagedRecords<std::byte> records,
                        cudaStream_t stream);

}  // namespace rmgsort
