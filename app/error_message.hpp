// What rmgsort prints on standard error for an exception that ends a command, after "rmgsort: ":
// the same text goes into a failed run's --stats ("error").
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace rmgsort {

// rmgsort::Error: its message, with what to do about memory for ENOMEM; std::bad_alloc: "out of
// memory" and the same advice; anything else: "unexpected error: " and its what(). `command` is the
// subcommand ("sort", "generate", "check"; "" before one is parsed): only sort has --host-memory to lower.
[[nodiscard]] std::string error_message(const std::exception& error, std::string_view command);

}  // namespace rmgsort
