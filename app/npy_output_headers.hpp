// The .npy headers of a sort's or a merge's outputs: the sorted array's (the input's dtype) before
// the records in the output, the positions' before them in --index-output; and, with --unique, both
// written again at the end, in place, once the shape (the records kept) is known.
#pragma once

#include <cstdint>
#include <optional>

#include "io/npy_format.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

// Where each output's .npy header starts (the descriptor's position when it was written), for
// rewrite_npy_output_headers; nullopt for an output without one, or whose position is none (a pipe).
struct NpyOutputHeads {
  std::optional<std::uint64_t> output_offset;
  std::optional<std::uint64_t> index_offset;
};

// Writes what precedes the records in each output of RUN: for .npy input (ARRAY, the input's
// header), the header of the sorted array of COUNT records (npy_header_for) to the output and that
// of the positions (npy_index_header) to --index-output; nothing for raw input (no ARRAY). The
// writers of the records then start where it ends.
NpyOutputHeads write_npy_output_headers(const std::optional<NpyHeader>& array, std::uint64_t count,
                                        const SortRun& run);

// --unique with .npy input: the outputs' shape is the count of records kept, known only once every
// record is written, so the headers are written first for every record and written again at the
// end, in place (their length does not depend on the count: npy_header_for leaves the shape room
// for 21 digits). Throws rmgsort::Error naming the output and the options when an output of RUN
// cannot be written again at its start: not a regular file, or opened to append (a pipe on
// standard output: its header would have gone before the count is known; buffering the output
// instead would hold all of it in memory). Called before anything is read.
void require_rewritable_npy_outputs(const std::optional<NpyHeader>& array, const SortRun& run);

// Writes the headers of HEADS (written for WRITTEN records) again, for COUNT records, at their
// offsets; the descriptors' positions stay as they are.
void rewrite_npy_output_headers(const std::optional<NpyHeader>& array, const SortRun& run,
                                const NpyOutputHeads& heads, std::uint64_t written, std::uint64_t count);

}  // namespace rmgsort
