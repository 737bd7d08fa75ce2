// The .npy headers of a sort's or a merge's outputs: the sorted array's before the records in the
// output, the positions' before them in --index-output; and, where the count written first may not be
// the final one, both written again at the end, in place, once it is known.
//
// Which outputs get one: for .npy input, both (the output of the input's dtype, the positions as
// '<u8'); for raw input, each output whose name ends in .npy, as `generate -o FILE.npy` decides
// (the records' header is generate's for the layout: a simple dtype for a bare key, else a
// structured one with the field 'key'), so `np.load` reads what a name promises.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/record_layout.hpp"
#include "io/npy_format.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

struct NpyOutputFormats {
  std::optional<NpyHeader> array;  // the records' output's header (its dtype); none: raw
  bool index = false;              // --index-output is a '<u8' .npy array
  // Raw input: the records' count may be known only at the end (a stream), so the headers are
  // written first for none and always written again at the end.
  bool raw_input = false;

  [[nodiscard]] bool any() const { return array.has_value() || index; }
  // Whether the headers are written again at the end: --unique's count is the records kept.
  [[nodiscard]] bool rewritten(bool unique) const { return any() && (unique || raw_input); }
};

// The formats of the outputs at OUTPUT_PATH and INDEX_PATH ("" when not written, "-" standard
// output) for records of LAYOUT whose input header is INPUT (none: raw input).
[[nodiscard]] NpyOutputFormats npy_output_formats(const std::optional<NpyHeader>& input, const RecordLayout& layout,
                                                  std::string_view output_path, std::string_view index_path);

// Where each output's .npy header starts (the descriptor's position when it was written), for
// rewrite_npy_output_headers; nullopt for an output without one, or whose position is none (a pipe).
struct NpyOutputHeads {
  std::optional<std::uint64_t> output_offset;
  std::optional<std::uint64_t> index_offset;
};

// Writes what precedes the records in each output of RUN that FORMATS gives a header: that of COUNT
// records (npy_header_for) or positions (npy_index_header). The writers of the records then start
// where it ends.
NpyOutputHeads write_npy_output_headers(const NpyOutputFormats& formats, std::uint64_t count, const SortRun& run);

// Before anything is read, when FORMATS.rewritten(UNIQUE): the headers' length does not depend on
// the count (npy_header_for leaves the shape room for 21 digits), so they are written first and
// written again at the end, in place. Throws rmgsort::Error naming the output and the reason when an
// output of RUN with a header cannot be written again at its start: not a regular file, or opened to
// append (a pipe on standard output: its header would have gone before the count is known;
// buffering the output instead would hold all of it in memory).
void require_rewritable_npy_outputs(const NpyOutputFormats& formats, bool unique, const SortRun& run);

// The same refusal by path, before the outputs are created (OUTPUT_PATH, INDEX_PATH as for
// npy_output_formats): an existing output with a header that is not a regular file (a FIFO, whose
// open would wait for a reader first).
void require_rewritable_npy_paths(const NpyOutputFormats& formats, bool unique, const std::string& output_path,
                                  const std::string& index_path);

// Writes the headers of HEADS (written for WRITTEN records) again, for COUNT records, at their
// offsets; the descriptors' positions stay as they are.
void rewrite_npy_output_headers(const NpyOutputFormats& formats, const SortRun& run, const NpyOutputHeads& heads,
                                std::uint64_t written, std::uint64_t count);

}  // namespace rmgsort
