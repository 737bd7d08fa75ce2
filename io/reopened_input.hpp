// A regular input closed after it was opened and checked, and opened again when it is read: merge
// opens each input again for each pass, and a sort of more inputs than the open-file limit holds
// at once closes those beyond it until their turn (io/input_sequence.hpp). What it was is kept, so
// that another file by its name, another size or contents written since are refused, not read.
#pragma once

#include <time.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/file_identity.hpp"
#include "io/input_file.hpp"

namespace rmgsort {

struct InputProbe {
  std::string path;
  std::optional<FileIdentity> identity;
  std::uint64_t data_offset = 0;        // as InputFile's: after a .npy header
  std::uint64_t data_bytes = 0;
  std::optional<timespec> modified;     // its contents' last write (st_mtim)
};

// What FILE (a regular file, open) is, to open it again.
[[nodiscard]] InputProbe probe_input(const InputFile& file);

// PROBE's file opened again at its data (data_offset and size as probed). Throws rmgsort::Error
// "PATH: changed while WHILE (it is another file now, another size, or written since)" where it
// is not the file, the size and the contents it was.
[[nodiscard]] InputFile reopen_input(const InputProbe& probe, std::string_view while_what);

}  // namespace rmgsort
