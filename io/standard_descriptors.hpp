// Standard input, output and error as the process found them. A descriptor the caller closed
// (`>&-`) is the lowest free number, so the next file opened would get it: an output file opened as
// descriptor 1 would then receive whatever is written to standard output, the statistics say.
#pragma once

namespace rmgsort {

struct ClosedStandardDescriptors {
  bool input = false;
  bool output = false;
  bool error = false;
};

// Records which of descriptors 0, 1 and 2 are closed and opens /dev/null on each of those, so that
// no file opened later lands there. Call first, before anything opens a file (the CUDA driver
// included); later calls return what the first one found. Throws rmgsort::Error when /dev/null
// cannot be opened to hold a closed one's place.
[[nodiscard]] ClosedStandardDescriptors hold_closed_standard_descriptors();

}  // namespace rmgsort
