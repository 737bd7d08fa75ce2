// rmgsort merge's inputs, each opened and its format told by its first bytes (not its name): raw
// records as --type, --record-size and --key-offset describe them, or .npy arrays, whose headers give
// the records (--key FIELD the key of a structured one). All of them are one or the other, of one
// layout: a .npy input's dtype must be the first one's, as the merged array has one header.
//
// Every input is opened and its header read before anything is written, so that a missing file or a
// layout that differs is refused at once. A regular file is closed again, to be opened once more
// when its pass reads it (thousands of inputs need not hold thousands of descriptors until then), and
// refused then if it is another file or another size. Standard input and other streams stay open:
// their bytes cannot be read twice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/record_layout.hpp"
#include "io/npy_format.hpp"
#include "sort/merge_inputs.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

struct MergeInputFiles {
  std::vector<MergeInput> inputs;        // for the driver (sort/merge_inputs.hpp)
  RecordLayout layout;                   // every input's records
  std::optional<NpyHeader> npy;          // the first input's header, when the inputs are .npy
  std::optional<std::uint64_t> records;  // of all of them, when every length is known before reading

  [[nodiscard]] const char* format() const { return npy ? "npy" : "raw"; }
};

// Opens OPTIONS.inputs in order. Throws rmgsort::Error naming the input (a missing or unreadable
// file, a .npy header rmgsort cannot read, a raw file that is not whole records, a format or .npy
// dtype other than the first input's) or the option (--type missing for raw input; --key for raw
// input; --record-size or --key-offset for .npy input).
[[nodiscard]] MergeInputFiles open_merge_inputs(const MergeOptions& options);

}  // namespace rmgsort
