// rmgsort sort's inputs, opened and their format told by their first bytes (not their names): raw
// records as --type, --record-size and --key-offset describe them, or .npy arrays, whose header gives
// the records and the key (--key FIELD for a structured one) and precedes the sorted output too.
// Several inputs are sorted as their concatenation (io/input_sequence.hpp): of one format, and .npy
// inputs of one dtype, the output's shape their counts together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/commands.hpp"
#include "core/record_layout.hpp"
#include "io/input_sequence.hpp"
#include "io/npy_format.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

struct SortInput {
  InputSequence input;           // every input, read as one
  std::optional<NpyHeader> npy;  // the first input's .npy header, its count every input's together; absent: raw
  RecordLayout layout;           // the records to sort

  [[nodiscard]] const char* format() const { return npy ? "npy" : "raw"; }
};

// Opens every one of OPTIONS.inputs in order and reads its .npy header, if it has one, and the
// layout: from the first header (--type must agree with it; --record-size and --key-offset are
// refused; every other input a .npy array of the same dtype) or from the options (--type required,
// --key refused; every input raw). Throws rmgsort::Error naming the input or the option.
[[nodiscard]] SortInput open_sort_input(const SortOptions& options);

// Throws rmgsort::Error naming the first regular input that is no whole number of records, its size
// and the record size (a .npy file's size was checked against its header when it was opened; a
// stream is checked by its reader at its end).
void require_whole_records(const SortInput& input);

// Where each output's .npy header starts (the descriptor's position when it was written), for
// rewrite_output_headers; nullopt for an output without one, or whose position is none (a pipe).
struct OutputHeads {
  std::optional<std::uint64_t> output_offset;
  std::optional<std::uint64_t> index_offset;
};

// Writes what precedes the records in each output of RUN: for a .npy input, the header of its
// sorted array (npy_header_for) to the output and that of the positions (npy_index_header) to
// --index-output; nothing for raw input. The writers of the records then start where it ends.
OutputHeads write_output_headers(const SortInput& input, const SortRun& run);

// --unique with a .npy input: the outputs' shape is the count of records kept, known only once every
// record is written, so the headers are written first for every record and written again at the
// end, in place (their length does not depend on the count: npy_header_for leaves the shape room
// for 21 digits). Throws rmgsort::Error naming the output and the options when an output of RUN
// cannot be written again at its start: not a regular file, or opened to append (a pipe on
// standard output: its header would have gone before the count is known; buffering the output
// instead would hold all of it in memory).
void require_rewritable_headers(const SortInput& input, const SortRun& run);

// Writes the headers of HEADS again, for COUNT records (at their offsets, the descriptors' positions
// left as they are).
void rewrite_output_headers(const SortInput& input, const SortRun& run, const OutputHeads& heads, std::uint64_t count);

}  // namespace rmgsort
