#include "app/merge_input.hpp"

#include <memory>
#include <utility>

#include "core/error.hpp"
#include "io/npy_input.hpp"
#include "io/reopened_input.hpp"

namespace rmgsort {
namespace {

// The records of a raw input: the options' (--type required, --key refused).
RecordLayout raw_layout(const MergeOptions& options, const std::string& name) {
  if (!options.key_field.empty())
    throw Error(name + ": --key " + options.key_field + ": the input is not a .npy file, so it has no fields; "
                "give raw records' key with --type, --record-size and --key-offset");
  if (!options.type_option)
    throw Error("-t,--type is required (" + name + " is not a .npy file, whose header gives it)");
  return options.layout;
}

// The records of a .npy input: its header's (--type must agree, --key names a structured one's key).
RecordLayout npy_layout(const MergeOptions& options, const NpyHeader& header, const std::string& name) {
  if (options.record_options)
    throw Error(name + ": --record-size and --key-offset describe raw input; this .npy file's header gives its "
                "records (" + std::to_string(header.item_size) + " bytes each)" +
                (header.structured ? " and --key FIELD the key" : ""));
  const std::optional<std::string_view> key =
      options.key_field.empty() ? std::nullopt : std::optional<std::string_view>(options.key_field);
  return npy_record_layout(header, key, options.type_option, name);
}

// Refuses an input whose format or dtype is not the first input's.
void require_like_first(const MergeInputFiles& files, const std::optional<NpyHeader>& header, const std::string& name,
                        const std::string& first_name) {
  if (header.has_value() != files.npy.has_value())
    throw Error(name + ": " + (header ? "a .npy file" : "not a .npy file") + ", where " + first_name + " is " +
                (files.npy ? "one" : "raw") + ": merge's inputs are all .npy files or all raw records");
  if (header && !same_npy_dtype(*header, *files.npy))
    throw Error(name + ": its .npy dtype " + header->descr + " is not " + first_name + "'s " + files.npy->descr +
                ": merge's inputs share one layout");
}

}  // namespace

MergeInputFiles open_merge_inputs(const MergeOptions& options) {
  MergeInputFiles files;
  std::string first_name;
  std::uint64_t records = 0;
  bool all_known = true;
  for (std::size_t i = 0; i < options.inputs.size(); ++i) {
    InputFile file = open_input(options.inputs[i]);
    refuse_character_device(file, options.layout.is_bare_key() ? "keys" : "records", NullDevice::accepted);
    const std::string name = file.display_name();
    NpyInput npy = read_npy_header(file);
    if (i == 0) {
      first_name = name;
      files.npy = npy.header;
      files.layout = npy.header ? npy_layout(options, *npy.header, name) : raw_layout(options, name);
    } else {
      require_like_first(files, npy.header, name, first_name);
      if (npy.header) (void)npy_layout(options, *npy.header, name);  // --key, --type: as for the first
    }
    MergeInput input;
    input.check = WindowInput{true, false, name, 0, std::nullopt, false, 0, 0};
    if (npy.header) {
      const NpyHeader& header = *npy.header;
      input.check.data_start = header.header_bytes;
      input.check.npy = true;
      input.check.npy_count = header.count;
      input.check.npy_item_size = header.item_size;
      if (!file.regular) input.check.expected_bytes = header.data_bytes();
      input.records = header.count;
    } else if (file.regular) {
      input.records = files.layout.whole_records(name, file.size);
    }
    // An input that holds no record, and nothing to check further (a raw stream that ended before
    // its first byte: an empty file, a pipe closed at once; a .npy file of none, its size checked
    // against its header) is closed here: no pass reads it, and merge's passes keep within the open
    // files (one descriptor held per empty input ran out of them).
    if ((!file.regular && !npy.header && npy.stream_head.empty()) ||
        (file.regular && npy.header && npy.header->count == 0))
      continue;
    if (input.records) {
      records += *input.records;
    } else {
      all_known = false;
    }
    // Standard input stays open even when it is a regular file: it has no name to open again.
    input.stream = !file.regular || file.is_stdin();
    if (input.stream) {
      auto held = std::make_shared<std::optional<OpenedInput>>();
      held->emplace(OpenedInput{std::move(file), std::move(npy.stream_head)});
      input.open = [held] {
        RMGSORT_EXPECTS(held->has_value(), "a stream input of merge is read once");
        OpenedInput opened = std::move(**held);
        held->reset();
        return opened;
      };
    } else {
      input.open = [probe = probe_input(file)] {
        return OpenedInput{reopen_input(probe, "merge read its inputs"), {}};
      };
    }
    files.inputs.push_back(std::move(input));
  }
  if (all_known) files.records = records;
  return files;
}

}  // namespace rmgsort
