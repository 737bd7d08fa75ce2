#include "app/npy_output_headers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "generate/npy_output_name.hpp"
#include "io/blocking_io.hpp"

namespace rmgsort {

NpyOutputFormats npy_output_formats(const std::optional<NpyHeader>& input, const RecordLayout& layout,
                                    std::string_view output_path, std::string_view index_path) {
  if (input) return {input, true, false};
  NpyOutputFormats formats;
  formats.raw_input = true;
  // generate's header for the layout, read back: the one dtype text for both (a header rmgsort reads).
  if (is_npy_output_name(output_path))
    formats.array = parse_npy_header(npy_header_for_generate(layout, 0), "the output's .npy header");
  formats.index = is_npy_output_name(index_path);
  return formats;
}

NpyOutputHeads write_npy_output_headers(const NpyOutputFormats& formats, std::uint64_t count, const SortRun& run) {
  NpyOutputHeads heads;
  const auto write_head = [](int fd, const std::string& name, const std::vector<std::byte>& header) {
    const off_t offset = lseek(fd, 0, SEEK_CUR);  // -1 on a pipe, where nothing is written again
    write_all(fd, name, header.data(), header.size());
    return offset < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(offset));
  };
  if (run.output_fd >= 0 && formats.array)
    heads.output_offset = write_head(run.output_fd, run.output_name, npy_header_for(*formats.array, count));
  if (run.index_fd >= 0 && formats.index)
    heads.index_offset = write_head(run.index_fd, run.index_name, npy_index_header(count));
  return heads;
}

namespace {

// "NAME: why its header is written again, and this output <IS>, whose start cannot be written
// again; what to do instead".
Error not_rewritable(const NpyOutputFormats& formats, const std::string& name, const std::string& is) {
  const std::string why = formats.raw_input
                              ? "a .npy output of raw input gets its header's shape (the records written) at the end"
                              : "--unique with .npy input writes the .npy header again at the end, when its shape (the "
                                "records kept) is known";
  const std::string remedy = formats.raw_input ? "write to a file, or to a name not ending in .npy (raw output)"
                                               : "write to a file (-o FILE.npy, --index-output FILE.npy), or give raw input";
  return Error(name + ": " + why + ", and this output " + is + ", whose start cannot be written again; " + remedy);
}

constexpr const char* kNotRegular = "is not a regular file (a pipe?)";

}  // namespace

void require_rewritable_npy_outputs(const NpyOutputFormats& formats, bool unique, const SortRun& run) {
  if (!formats.rewritten(unique)) return;
  for (const auto& [fd, name, has_header] : {std::tuple{run.output_fd, run.output_name, formats.array.has_value()},
                                             std::tuple{run.index_fd, run.index_name, formats.index}}) {
    if (fd < 0 || !has_header) continue;
    struct stat st {};
    const int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flags >= 0 && (flags & O_APPEND) == 0) continue;
    throw not_rewritable(formats, name, S_ISREG(st.st_mode) ? "is opened to append" : kNotRegular);
  }
}

void require_rewritable_npy_paths(const NpyOutputFormats& formats, bool unique, const std::string& output_path,
                                  const std::string& index_path) {
  if (!formats.rewritten(unique)) return;
  for (const auto& [path, has_header] :
       {std::pair{output_path, formats.array.has_value()}, std::pair{index_path, formats.index}}) {
    struct stat st {};
    if (!has_header || path.empty() || path == "-" || stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) continue;
    throw not_rewritable(formats, path, kNotRegular);
  }
}

void rewrite_npy_output_headers(const NpyOutputFormats& formats, const SortRun& run, const NpyOutputHeads& heads,
                                std::uint64_t written, std::uint64_t count) {
  const auto rewrite = [](int fd, const std::string& name, std::uint64_t offset, const std::vector<std::byte>& header,
                          std::size_t written_length) {
    RMGSORT_EXPECTS(header.size() == written_length, "a .npy header's length does not depend on its count");
    pwrite_all(fd, name, header.data(), header.size(), offset);
  };
  if (run.output_fd >= 0 && heads.output_offset && formats.array)
    rewrite(run.output_fd, run.output_name, *heads.output_offset, npy_header_for(*formats.array, count),
            npy_header_for(*formats.array, written).size());
  if (run.index_fd >= 0 && heads.index_offset && formats.index)
    rewrite(run.index_fd, run.index_name, *heads.index_offset, npy_index_header(count),
            npy_index_header(written).size());
}

}  // namespace rmgsort
