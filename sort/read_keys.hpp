// Reading the keys the in-memory paths sort (sort/in_memory_sort.hpp, sort/rounds_sort.hpp): a
// file into memory prepared for the plan's engine, or a stream's prefix before it is planned, with
// what is computed while the keys land (--verify's checksum, the rounds' top digits).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "report/progress.hpp"
#include "host/checksum.hpp"
#include "host/top_digit_histogram.hpp"
#include "io/host_buffer.hpp"
#include "io/input_sequence.hpp"
#include "io/output_pages.hpp"
#include "sort/sort_plan.hpp"

namespace rmgsort {

// The keys are in `keys`, or, when that is empty, in the output file's own pages
// (io/output_pages.hpp): read there to be sorted there (in memory), or partitioned there from
// `keys` (in rounds, which free `keys` once partitioned). data() is where they are.
struct KeysInMemory {
  HostBuffer keys;
  std::unique_ptr<OutputPages> output_pages;
  std::uint64_t bytes = 0;
  bool complete = true;  // all of the input (a stream: else its prefix, to be spilled)
  bool direct = false;   // some of it was read with O_DIRECT
  KeyChecksum checksum;  // of every key, when --verify asks for it
  // The input's top digits, counted by the reading threads when the plan partitions it into rounds:
  // the partition's first pass (host/top_digit_histogram.hpp).
  std::unique_ptr<TopDigitHistogram> top_digits;
  // How long the read waited for the output's pages to be reserved after it (rounds partitioned
  // into them), or nothing.
  std::optional<double> reserve_waited_seconds;

  [[nodiscard]] std::byte* data() {
    return keys.data() == nullptr && output_pages ? output_pages->data() : keys.data();
  }
};

// The regular `input` (one file or several), planned in memory or in rounds, read on `threads`
// threads into memory placed for the plan's engine; page-locked before it is read when the engine
// sorts it where it lies. With OUTPUT_PAGES (a plan whose engine sorts in place): in memory, the
// input is read into them instead, and page-locked there for the GPUs; in rounds, their pages are
// allocated (OutputPages::reserve) while the input is read, for the partition to store into.
[[nodiscard]] KeysInMemory read_file_keys(const SortPlan& plan, const InputSequence& input, SortOrder order,
                                          bool verify, unsigned threads, Progress& progress,
                                          std::unique_ptr<OutputPages> output_pages = nullptr);

// The first stream_prefix_limit(host_memory) bytes of the stream `input`, or all of it
// (read_sequence_prefix).
[[nodiscard]] KeysInMemory read_stream_keys(InputSequence& input, std::uint64_t host_memory, Progress& progress);

// A stream read and planned: a complete one gets its checksum (--verify) and is page-locked when
// the engine sorts it where it lies. (A file gets both while it is read.)
void prepare_stream_keys(const SortPlan& plan, KeysInMemory& keys, bool verify);

}  // namespace rmgsort
