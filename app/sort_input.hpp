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

}  // namespace rmgsort
