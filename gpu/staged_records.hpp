// Records staged on a GPU in two runs of device memory (gpu/record_pair_kernels.cuh splits them into
// pairs): where a range of their bytes goes, and a range of them seen as records of their own. Host
// code, no CUDA: the copy in (gpu/in_core_copy_in.cpp) stages each piece of a chunk with these.
#pragma once

#include <cstdint>
#include <vector>

namespace rmgsort {

// Records staged in two runs: their bytes [0, first_bytes) at `first`, the rest at `rest`.
template <class Byte>
struct StagedRecords {
  Byte* first = nullptr;
  std::uint64_t first_bytes = 0;
  Byte* rest = nullptr;
};

// One plain copy that stages bytes [chunk_offset, chunk_offset + bytes) of the records at `to`.
template <class Byte>
struct StagedCopy {
  Byte* to = nullptr;
  std::uint64_t chunk_offset = 0;
  std::uint64_t bytes = 0;
};

// The copies that stage bytes [begin, end) of the records: one per run the range touches (none
// for an empty range).
template <class Byte>
std::vector<StagedCopy<Byte>> staged_copies(StagedRecords<Byte> staged, std::uint64_t begin, std::uint64_t end) {
  std::vector<StagedCopy<Byte>> copies;
  if (begin < end && begin < staged.first_bytes) {
    const std::uint64_t first_end = end < staged.first_bytes ? end : staged.first_bytes;
    copies.push_back({staged.first + begin, begin, first_end - begin});
    begin = first_end;
  }
  if (begin < end) copies.push_back({staged.rest + (begin - staged.first_bytes), begin, end - begin});
  return copies;
}

// The staged records from byte `begin` on (a record's first byte), as records of their own: their
// byte b is the whole's byte begin + b.
template <class Byte>
StagedRecords<const Byte> staged_from(StagedRecords<Byte> staged, std::uint64_t begin) {
  if (begin < staged.first_bytes) return {staged.first + begin, staged.first_bytes - begin, staged.rest};
  const Byte* at = staged.rest + (begin - staged.first_bytes);
  return {at, 0, at};
}

}  // namespace rmgsort
