// The checks every command that sorts or merges makes before it reads or creates anything: no file
// it writes is another one it writes, nor an input it reads unless a rename replaces it (-o), nor
// standard error's regular file; no stream is read twice (io/file_identity.hpp compares files by
// device and inode, whatever their names). One function for sort, merge and each rank of sort --distributed, so that a file
// the run writes is checked the same way on every path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rmgsort {

// The names a run was given, as the user wrote them.
struct RunFileNames {
  std::vector<std::string> inputs;  // "-": standard input
  std::string output;               // -o: "" not written, "-" standard output, else replaced by a rename
  std::string index_output;         // --index-output, as -o
  std::string stats;                // --stats, as -o
};

// How messages speak of the run's output.
struct OutputWording {
  std::string records;  // what -o holds: "the sorted keys", "the merged records"
  // The advice when standard output is an input: sort can sort that file in place (-o INPUT).
  bool sorts_in_place = false;
};

// Throws rmgsort::Error, naming the files and what to do instead, when a file of `names` written by
// the run is another one it writes, an input it would destroy as it reads it (anything but -o), or
// the regular file standard error writes to. Standard output and standard error are looked up here.
// Once they pass, the inputs are kept from the removal of stale temporary outputs
// (io/stale_temporaries.hpp: keep_inputs), whose names an input may bear.
void require_separate_outputs(const RunFileNames& names, const OutputWording& wording);

// Throws rmgsort::Error naming both when one stream (a pipe, a FIFO, a socket) is among INPUTS
// twice, by any names ("-" and /dev/stdin, a FIFO by two paths): what the first read takes, the
// second never sees. ("-" given twice is the caller's to refuse, with its own message.)
void require_streams_named_once(const std::vector<std::string>& inputs);

}  // namespace rmgsort
