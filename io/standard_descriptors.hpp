// Standard input, output and error as the process found them. A descriptor the caller closed
// (`>&-`) is the lowest free number, so the next file opened would get it: an output file opened as
// descriptor 1 would then receive whatever is written to standard output, the statistics say.
#pragma once

#include <string>

namespace rmgsort {

struct ClosedStandardDescriptors {
  bool input = false;
  bool output = false;
  bool error = false;
};

// Records which of descriptors 0, 1 and 2 are closed and holds each of those with a descriptor that
// can be neither read nor written (a path-only descriptor of "/"), so that no file opened later
// lands there and any use of it, by any name, fails. Call first, before anything opens a file (the
// CUDA driver included); later calls return what the first one found. Throws rmgsort::Error when
// the place cannot be held.
[[nodiscard]] ClosedStandardDescriptors hold_closed_standard_descriptors();

// Throws rmgsort::Error ("WHAT: names standard output, which is closed") when PATH leads to the
// place holder of a closed standard descriptor (/dev/stdout, /dev/fd/1, /proc/self/fd/1 once
// descriptor 1 was found closed), so that the refusal says why; "-" is the caller's to refuse.
void refuse_closed_standard_descriptor(const std::string& path, const std::string& what);

}  // namespace rmgsort
