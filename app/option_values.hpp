// The command line's values with rmgsort's messages: the options CLI11 only collects as text
// (--type, --record-size, --key-offset, --seed, --progress) converted, and the rules CLI11 checks
// while it parses (--threads, the choices of --type and --progress, which --help lists, no empty
// values, flags without values). Each error names the option.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "report/progress.hpp"
#include "core/key_type.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

[[nodiscard]] KeySpec key_spec_option(const std::string& text);

// --type's choices, listed by --help ("TYPE:{u32,u64,i32,i64,f32,f64,bytes:N}"); an unknown type is
// refused while parsing, in key_spec_option's words.
[[nodiscard]] const CLI::Validator& key_type_choices();

// A whole number of bytes (no suffix): --record-size, --key-offset.
[[nodiscard]] std::uint64_t byte_count_option(const std::string& text, const char* option);

// The layout of --type, --record-size and --key-offset (each given as text, "" when absent).
[[nodiscard]] RecordLayout layout_option(const std::string& type, const std::string& record_size,
                                         const std::string& key_offset);

[[nodiscard]] std::uint64_t seed_option(const std::string& text);

[[nodiscard]] ProgressMode progress_option(const std::string& text);

// --progress's choices, listed by --help ("MODE:{auto,always,never,lines,json}"); an unknown mode
// is refused while parsing, in progress_option's words.
[[nodiscard]] const CLI::Validator& progress_choices();

// --threads: a whole number from 1 to 4096 (CLI11's own Range says "Value abc not in range 1 to 4096").
[[nodiscard]] const CLI::Validator& thread_count_check();

// An empty value would silently mean the default (--host-memory '', -T '', --stats '') or name no file
// (-o '', an empty INPUT): every option of `command` that takes a value refuses one, as
// "--host-memory: empty value". A transform runs before the option's other checks (--threads' range),
// so the message is always this. A flag refuses a value ("--verify=yes", "--descending=abc": CLI11
// would read it as a number).
void apply_value_rules(CLI::App& command);

}  // namespace rmgsort
