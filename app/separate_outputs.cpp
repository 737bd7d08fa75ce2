#include "app/separate_outputs.hpp"

#include <unistd.h>

#include <optional>
#include <utility>

#include "core/error.hpp"
#include "io/file_identity.hpp"
#include "io/stale_temporaries.hpp"

namespace rmgsort {
namespace {

// The name of INPUT in messages: "stdin" for "-".
std::string display_name(const std::string& input) { return input == "-" ? "stdin" : input; }

}  // namespace

void require_separate_outputs(const RunFileNames& names, const OutputWording& wording) {
  const std::optional<FileIdentity> stdout_identity = identity_of_descriptor(STDOUT_FILENO);
  const std::vector<WrittenFile> written = written_outputs(names.output, names.index_output, names.stats,
                                                          wording.records + " on standard output", stdout_identity);
  require_standard_error_kept(written, identity_of_descriptor(STDERR_FILENO));
  for (const std::string& input : names.inputs) {
    const std::string name = display_name(input);
    const std::optional<FileIdentity> input_identity =
        input == "-" ? identity_of_descriptor(STDIN_FILENO) : identity_of_existing(input);
    if ((names.output == "-" || names.index_output == "-") && input_identity && input_identity->regular &&
        stdout_identity == input_identity) {
      // What goes to standard output: the records (-o -, the default), else the positions alone.
      if (names.output != "-")
        throw Error("standard output is the input file " + name +
                    ": the positions (--index-output -) would overwrite it as it is read; use --index-output FILE");
      const std::string advice = !wording.sorts_in_place ? "use -o FILE"
                                 : input == "-"          ? "use -o FILE to sort in place"
                                                         : "use -o " + input + " to sort in place";
      throw Error("standard output is the input file " + name + ": " + wording.records +
                  " would overwrite it as it is read; " + advice);
    }
    require_separate_files(written, input_identity, name);
  }
  // No output's staging takes an input for what a killed run left (io/stale_temporaries.hpp).
  keep_inputs(names.inputs);
}

void require_streams_named_once(const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, FileIdentity>> streams;
  for (const std::string& input : inputs) {
    const std::optional<FileIdentity> identity =
        input == "-" ? identity_of_descriptor(STDIN_FILENO) : identity_of_existing(input);
    if (!identity || !identity->stream) continue;
    for (const auto& [earlier, earlier_identity] : streams)
      if (earlier_identity == *identity)
        throw Error(display_name(input) + " and " + display_name(earlier) +
                    " are the same stream: it can be read only once; name it once");
    streams.emplace_back(input, *identity);
  }
}

}  // namespace rmgsort
