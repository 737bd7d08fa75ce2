// The steps of sort --distributed that each rank takes on its own (app/command_distributed_sort.cpp
// runs them between the ranks' agreements): its slice read, the engine for its share and the
// memory that takes, its share sorted and filtered, its records written at their offset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/sort_input.hpp"
#include "host/checksum.hpp"
#include "io/host_buffer.hpp"
#include "sort/sort_plan.hpp"

namespace rmgsort {

// The job's input as every rank opened it, and where this rank's slice lies.
struct JobInput {
  std::optional<SortInput> input;
  std::uint64_t total = 0;  // records, every rank's
  std::uint64_t first = 0;  // this rank's first record
  std::uint64_t count = 0;  // this rank's records; also its share's, the splitters being exact
  // When each regular input was last written, as this rank opened it (streams: none).
  std::vector<std::optional<timespec>> written;
};

// When each of INPUT's regular files was last written (their modification times).
[[nodiscard]] std::vector<std::optional<timespec>> input_write_times(const SortInput& input);

// Throws rmgsort::Error naming the input when one of JOB's regular files was written after the rank
// opened it: the splitters were found in records that the exchange no longer reads (a share of an
// input written over during a run came out unsorted across ranks, exit 0).
void require_input_unchanged(const JobInput& job);

// This rank's slice of the input: records [first, first + count) of the inputs' concatenation.
struct RankSlice {
  HostBuffer records;
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  double seconds = 0;
  KeyChecksum checksum;  // --verify
};

// Reads records [first, first + count) of INPUT (pread, in pieces of 64 MiB).
[[nodiscard]] RankSlice read_slice(const SortInput& input, std::uint64_t first, std::uint64_t count, bool verify);

// The host memory a rank needs beside its share's sort: the slice, its records' destinations
// (dist/classified_slice.hpp) and the exchange's staging.
struct ExchangeMemory {
  std::uint64_t slice = 0;
  std::uint64_t destinations = 0;
  std::uint64_t staging = 0;  // both staging buffers
};

// The plan of a rank's share of RECEIVED records in memory: the engine (the GPUs of --gpus that take
// it whole, else the CPU), its records the user's layout, with their global positions appended when
// --index-output asks (PositionSource::appended), and the memory, checked against --host-memory.
// nullopt, with TOO_LARGE saying why (naming the sizes), when the share is more than one sort of the
// engine takes or more than --host-memory holds beside the slice and the staging: the share then
// goes through a file (app/distributed_share_file.hpp).
[[nodiscard]] std::optional<SortPlan> plan_share(const SortOptions& options, const RecordLayout& layout,
                                                 std::uint64_t received, const ExchangeMemory& exchange,
                                                 std::vector<int>& gpus_selected, std::string& too_large);

}  // namespace rmgsort
