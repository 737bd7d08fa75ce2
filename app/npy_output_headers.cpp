#include "app/npy_output_headers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/blocking_io.hpp"

namespace rmgsort {

NpyOutputHeads write_npy_output_headers(const std::optional<NpyHeader>& array, std::uint64_t count,
                                        const SortRun& run) {
  NpyOutputHeads heads;
  if (!array) return heads;
  const auto write_head = [](int fd, const std::string& name, const std::vector<std::byte>& header) {
    const off_t offset = lseek(fd, 0, SEEK_CUR);  // -1 on a pipe, where nothing is written again
    write_all(fd, name, header.data(), header.size());
    return offset < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(offset));
  };
  if (run.output_fd >= 0) heads.output_offset = write_head(run.output_fd, run.output_name, npy_header_for(*array, count));
  if (run.index_fd >= 0) heads.index_offset = write_head(run.index_fd, run.index_name, npy_index_header(count));
  return heads;
}

void require_rewritable_npy_outputs(const std::optional<NpyHeader>& array, const SortRun& run) {
  if (!array) return;
  for (const auto& [fd, name] : {std::pair{run.output_fd, run.output_name}, std::pair{run.index_fd, run.index_name}}) {
    if (fd < 0) continue;
    struct stat st {};
    const int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flags >= 0 && (flags & O_APPEND) == 0) continue;
    throw Error(name + ": --unique with .npy input writes the .npy header again at the end, when its shape (the "
                "records kept) is known, and this output " +
                (S_ISREG(st.st_mode) ? "is opened to append" : "is not a regular file (a pipe?)") +
                ", whose start cannot be written again; write to a file (-o FILE.npy, --index-output FILE.npy), "
                "or give raw input");
  }
}

void rewrite_npy_output_headers(const std::optional<NpyHeader>& array, const SortRun& run,
                                const NpyOutputHeads& heads, std::uint64_t written, std::uint64_t count) {
  if (!array) return;
  const auto rewrite = [](int fd, const std::string& name, std::uint64_t offset, const std::vector<std::byte>& header,
                          std::size_t written_length) {
    RMGSORT_EXPECTS(header.size() == written_length, "a .npy header's length does not depend on its count");
    pwrite_all(fd, name, header.data(), header.size(), offset);
  };
  if (run.output_fd >= 0 && heads.output_offset)
    rewrite(run.output_fd, run.output_name, *heads.output_offset, npy_header_for(*array, count),
            npy_header_for(*array, written).size());
  if (run.index_fd >= 0 && heads.index_offset)
    rewrite(run.index_fd, run.index_name, *heads.index_offset, npy_index_header(count),
            npy_index_header(written).size());
}

}  // namespace rmgsort
