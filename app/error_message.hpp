// What rmgsort prints on standard error for an exception that ends a command, after "rmgsort: ":
// the same text goes into a failed run's --stats ("error").
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace rmgsort {

// rmgsort::Error: its message, with what to do about memory for ENOMEM; std::bad_alloc: "out of
// memory" and the same advice; anything else: "unexpected error: " and its what(). `command` is the
// subcommand ("sort", "generate", "check"; "" before one is parsed): only sort has --host-memory to lower.
// A closed pipe (see ends_by_sigpipe) gets " (the reader closed the pipe early)" after its message.
[[nodiscard]] std::string error_message(const std::exception& error, std::string_view command);

// Whether ERROR ends the process quietly by SIGPIPE (io/cleanup.hpp's die_of_sigpipe) rather than
// with a message: a write to a pipe whose reader closed it (EPIPE), as `rmgsort sort ... | head`
// makes normal, unless the process was started with SIGPIPE ignored (then it is an error like any
// other, as GNU sort reports it).
[[nodiscard]] bool ends_by_sigpipe(const std::exception& error);

// The exit status ERROR ends a command with: kExitClosedPipe (141) when it ends by SIGPIPE, else
// kExitError (2). What --stats records.
[[nodiscard]] int exit_status_of(const std::exception& error);

// Writes "rmgsort: TEXT" on standard error, as one line: TEXT's control characters (a file name's)
// written as '?' (report/printable.hpp).
void print_error_line(const std::string& text);

// Writes the line that ends a failed run on standard error, "rmgsort: MESSAGE", preceded under
// --progress json by the failure's object (report/progress.hpp's json_progress_failure) with
// EXIT_STATUS.
void print_failure(const std::string& message, int exit_status);

// Says on standard error that a failed run's --stats could not be written (ERROR: why); the run
// still ends with its own error.
void print_statistics_not_written(const std::exception& error) noexcept;

class OutputFile;

// How the message of a run that failed after creating its outputs (-o and --index-output; empty
// when not given) speaks of them: "nothing was committed" when discarding takes back all that was
// written; otherwise it names the outputs that got records as they were written (a pipe, a FIFO, a
// device), which no discard can take back.
[[nodiscard]] std::string uncommitted_outputs(const std::optional<OutputFile>& output,
                                              const std::optional<OutputFile>& index);

}  // namespace rmgsort
