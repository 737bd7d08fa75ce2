#include "app/sort_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "core/error.hpp"
#include "io/blocking_io.hpp"

namespace rmgsort {
namespace {

// The layout of the .npy inputs PARTS (the first's header; every other of the same dtype), and
// their header: the first's, its count theirs together.
RecordLayout npy_layout(const SortOptions& options, const std::vector<InputPart>& parts, NpyHeader& header) {
  const InputPart& first = parts.front();
  const std::string name = first.file.display_name();
  if (options.record_options)
    throw Error(name + ": --record-size and --key-offset describe raw input; this .npy file's header gives its "
                "records (" + std::to_string(first.npy->item_size) + " bytes each)" +
                (first.npy->structured ? " and --key FIELD the key" : ""));
  const std::optional<std::string_view> key =
      options.key_field.empty() ? std::nullopt : std::optional<std::string_view>(options.key_field);
  const RecordLayout layout = npy_record_layout(*first.npy, key, options.type_option, name);
  header = *first.npy;
  header.count = 0;
  for (const InputPart& part : parts) {
    const std::string part_name = part.file.display_name();
    if (!part.npy)
      throw Error(part_name + ": not a .npy file, unlike " + name + ": several inputs are sorted as one array, so "
                  "they are all .npy files of one dtype or all raw");
    if (part.npy->descr != first.npy->descr)
      throw Error(part_name + ": its .npy dtype " + part.npy->descr + " is not " + name + "'s " + first.npy->descr +
                  ": several inputs are sorted as one array of one dtype");
    if (part.npy->count > (UINT64_MAX / header.item_size - header.count))
      throw Error(part_name + ": the inputs hold more items than 64-bit sizes count");
    header.count += part.npy->count;
  }
  return layout;
}

// The layout of the raw inputs PARTS, from the options.
RecordLayout raw_layout(const SortOptions& options, const std::vector<InputPart>& parts) {
  const std::string name = parts.front().file.display_name();
  if (!options.key_field.empty())
    throw Error(name + ": --key " + options.key_field + ": the input is not a .npy file, so it has no fields; "
                "give raw records' key with --type, --record-size and --key-offset");
  // CLI11's own words, from when --type was required for every input.
  if (!options.type_option) throw Error("-t,--type is required (" + name + " is not a .npy file, whose header gives it)");
  for (const InputPart& part : parts) {
    const std::string part_name = part.file.display_name();
    if (part.npy)
      throw Error(part_name + ": a .npy file, unlike " + name + ": several inputs are sorted as one array, so "
                  "they are all .npy files of one dtype or all raw");
  }
  return options.layout;
}

}  // namespace

SortInput open_sort_input(const SortOptions& options) {
  std::vector<InputPart> parts;
  for (const std::string& path : options.inputs) parts.push_back(open_input_part(path));
  SortInput input;
  if (parts.front().npy) {
    input.npy.emplace();
    input.layout = npy_layout(options, parts, *input.npy);
  } else {
    input.layout = raw_layout(options, parts);
  }
  input.input = InputSequence(std::move(parts), input.layout);
  return input;
}

void require_whole_records(const SortInput& input) {
  for (const InputPart& part : input.input.parts()) {
    if (part.file.regular) (void)input.layout.whole_records(part.file.display_name(), part.file.size);
  }
}

OutputHeads write_output_headers(const SortInput& input, const SortRun& run) {
  OutputHeads heads;
  if (!input.npy) return heads;
  const auto write_head = [](int fd, const std::string& name, const std::vector<std::byte>& header) {
    const off_t offset = lseek(fd, 0, SEEK_CUR);  // -1 on a pipe, where nothing is written again
    write_all(fd, name, header.data(), header.size());
    return offset < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(offset));
  };
  if (run.output_fd >= 0)
    heads.output_offset = write_head(run.output_fd, run.output_name, npy_header_for(*input.npy, input.npy->count));
  if (run.index_fd >= 0)
    heads.index_offset = write_head(run.index_fd, run.index_name, npy_index_header(input.npy->count));
  return heads;
}

void require_rewritable_headers(const SortInput& input, const SortRun& run) {
  if (!input.npy) return;
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

void rewrite_output_headers(const SortInput& input, const SortRun& run, const OutputHeads& heads, std::uint64_t count) {
  if (!input.npy) return;
  const auto rewrite = [](int fd, const std::string& name, std::uint64_t offset, const std::vector<std::byte>& header,
                          std::size_t written_length) {
    RMGSORT_EXPECTS(header.size() == written_length, "a .npy header's length does not depend on its count");
    pwrite_all(fd, name, header.data(), header.size(), offset);
  };
  if (run.output_fd >= 0 && heads.output_offset)
    rewrite(run.output_fd, run.output_name, *heads.output_offset, npy_header_for(*input.npy, count),
            npy_header_for(*input.npy, input.npy->count).size());
  if (run.index_fd >= 0 && heads.index_offset)
    rewrite(run.index_fd, run.index_name, *heads.index_offset, npy_index_header(count),
            npy_index_header(input.npy->count).size());
}

}  // namespace rmgsort
