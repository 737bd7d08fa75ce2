// Parsing the command line's quantities.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rmgsort {

// SIZE: a whole number of bytes with an optional suffix K, M, G or T (powers of 1024; "K", "k",
// "KB" and "KiB" alike): "4096", "64K", "1.5G" (a fraction needs a suffix and must give whole bytes).
// Throws Error naming `option` for anything else, zero included when allow_zero is false.
[[nodiscard]] std::uint64_t parse_size(std::string_view text, std::string_view option, bool allow_zero = false);

// SIZE as parse_size takes it, or a percentage of WHOLE ("50%", "12.5%": more than 0 and at most
// 100, as GNU sort's -S takes one of physical memory), rounded down to whole bytes. Throws Error
// naming `option` for a malformed size or percentage, 0 (0% included) and more than 100%.
[[nodiscard]] std::uint64_t parse_size_or_percent(std::string_view text, std::string_view option, std::uint64_t whole);

// COUNT: a whole number with an optional suffix k, M or G (powers of 1000): "1000", "4G" = 4e9.
[[nodiscard]] std::uint64_t parse_count(std::string_view text, std::string_view option);

// "1.50 GiB"-style rendering for messages.
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);
// "7.81 KiB (8000 bytes)": exact where rounding would hide the difference that matters (the least a
// limit may be).
[[nodiscard]] std::string format_bytes_exactly(std::uint64_t bytes);

}  // namespace rmgsort
