// The line a handled signal leaves before the process ends (io/cleanup.hpp's handlers): the --stats
// object of a run that a signal stopped. Armed with one line per handled signal, it is written, once,
// to a descriptor, or into a staged OutputFile that the handler then names as commit() would; all
// without allocating or locking. One set of words at a time, in static storage.
#pragma once

#include <string>
#include <vector>

#include "io/output_file.hpp"

namespace rmgsort {

// Arms the handlers to write lines[i] for kCleanupSignals[i] (whole lines, '\n' ended) into FILE,
// staged and written by nothing else, and then commit it. False (and nothing armed) where FILE has no
// signal commit (OutputFile::signal_commit). LINES and FILE must outlive disarm_last_words().
bool arm_last_words(const OutputFile& file, const std::vector<std::string>& lines);
// The same, written to DESCRIPTOR, which nothing else writes until disarm_last_words().
void arm_last_words(int descriptor, const std::vector<std::string>& lines);

// Takes the words back: no handler writes them once this returns. A handler that began writing them
// is ending the process: then this waits for that, and does not return.
void disarm_last_words() noexcept;

// What the handlers do first: the armed line for SIGNAL_NUMBER, written and committed, once (a
// second signal, on another thread, finds them taken). Async-signal-safe.
void say_last_words(int signal_number) noexcept;

}  // namespace rmgsort
