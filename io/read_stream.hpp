// A pipe or standard input of unknown length, read to its end into one growing buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "io/host_buffer.hpp"
#include "io/input_file.hpp"

namespace rmgsort {

// Reads INPUT to its end; returns a buffer whose size() is BYTES_READ. Throws rmgsort::Error naming the
// input and LIMIT_BYTES ("stdin: input is larger than the limit of N bytes") as soon as more than
// LIMIT_BYTES arrive, so an endless stream cannot exhaust memory; the caller adds the option name.
// The buffer grows by doubling (mremap), so at most twice the input's size is ever mapped.
[[nodiscard]] HostBuffer read_stream(const InputFile& input, std::uint64_t limit_bytes, std::uint64_t& bytes_read);

// Reads INPUT to its end or to LIMIT_BYTES + 1 bytes, whichever comes first: COMPLETE tells which.
// When it is false the input continues (after the BYTES_READ = LIMIT_BYTES + 1 bytes returned) and
// the caller goes on reading from INPUT's descriptor. HEAD: bytes of INPUT read already (to tell
// its format: io/npy_input.hpp), which the buffer starts with. ON_READ, when not empty, is told the
// bytes as they arrive (HEAD's first), read by read: --progress.
[[nodiscard]] HostBuffer read_stream_prefix(const InputFile& input, std::uint64_t limit_bytes, std::uint64_t& bytes_read,
                                            bool& complete, std::span<const std::byte> head = {},
                                            const std::function<void(std::size_t)>& on_read = {});

}  // namespace rmgsort
