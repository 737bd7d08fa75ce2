// rmgsort's own words for the command-line errors CLI11 finds: its raw texts ("--output: At Most 1
// required but received 2") never reach a user.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace rmgsort {

// The lines to print for `error`, thrown by app.parse(): "rmgsort: " and the problem, naming the
// option and what it expects ("-o/--output given 2 times (sort takes one FILE)"), then where the
// usage is ("Run 'rmgsort sort --help' for its options."). Reads what the parse left in `app` (each
// option's count, the arguments nothing took) to find the option.
[[nodiscard]] std::string usage_error_text(const CLI::App& app, const CLI::ParseError& error);

}  // namespace rmgsort
