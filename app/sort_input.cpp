#include "app/sort_input.hpp"

#include <utility>

#include "core/error.hpp"
#include "sort/merge_plan.hpp"

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
    if (!same_npy_dtype(*part.npy, *first.npy))
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
  // The options' words for what a device is not (a .npy header is only read once it is refused).
  const char* what = options.layout.is_bare_key() ? "keys" : "records";
  // Beyond what the open-file limit holds at once, each regular input is closed once checked, and
  // opened again for its turn: a sort of more inputs than `ulimit -Hn` failed "Too many open files".
  const std::size_t held_at_most = inputs_held_open_at_most(raise_open_file_limit());
  for (const std::string& path : options.inputs) {
    parts.push_back(open_input_part(path, what));
    if (parts.size() > held_at_most) close_until_read(parts.back());
  }
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

}  // namespace rmgsort
