#include "app/distributed_file_checks.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/separate_outputs.hpp"
#include "core/error.hpp"
#include "dist/shared_output.hpp"
#include "io/file_identity.hpp"
#include "io/standard_descriptors.hpp"

namespace rmgsort {
namespace {

// A file the parts must not be: how messages name it, where it leads.
struct KeptFile {
  std::string label;
  std::string path;
  std::optional<FileIdentity> identity;
};

std::string last_component(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// OUTPUT's parts that exist, and those named as KEPT's files are (existing or not), in OUTPUT's directory.
std::vector<std::string> parts_to_compare(const std::string& output, const std::vector<KeptFile>& kept) {
  std::string unreadable;  // (a directory that cannot be listed fails the output's own creation)
  std::vector<std::string> parts = dist::existing_parts(output, 0, unreadable);
  const std::size_t slash = output.rfind('/');
  for (const KeptFile& file : kept) {
    const std::string name = last_component(file.path);
    if (dist::part_rank(output, name))
      parts.push_back(slash == std::string::npos ? name : output.substr(0, slash + 1) + name);
  }
  return parts;
}

void require_outside_parts(const SortOptions& options) {
  std::vector<KeptFile> kept;
  for (const std::string& input : options.inputs)
    kept.push_back({"the input " + input, input, identity_of_existing(input)});
  if (!options.stats.empty())
    kept.push_back({"--stats " + options.stats, options.stats, identity_of_output(options.stats)});
  const std::pair<const char*, const std::string*> outputs[] = {{"-o", &options.output},
                                                                {"--index-output", &options.index_output}};
  for (const auto& [option, output] : outputs) {
    if (output->empty()) continue;
    for (const std::string& part : parts_to_compare(*output, kept)) {
      const std::optional<FileIdentity> identity = identity_of_output(part);
      for (const KeptFile& file : kept)
        if (identity && file.identity && *identity == *file.identity)
          throw Error(file.label + ": is " + part + ", a part of " + option + " " + *output +
                      " (--output-parts): the run would replace it, or remove it as an earlier run's part; "
                      "give the output another name");
    }
  }
}

}  // namespace

void require_distributed_files_apart(const dist::Communicator& communicator, const SortOptions& options) {
  for (const std::string& input : options.inputs) refuse_closed_standard_descriptor(input, input);
  if (!options.output.empty()) refuse_closed_standard_descriptor(options.output, "-o " + options.output);
  if (!options.index_output.empty())
    refuse_closed_standard_descriptor(options.index_output, "--index-output " + options.index_output);
  if (!options.stats.empty()) refuse_closed_standard_descriptor(options.stats, "--stats " + options.stats);
  const auto written = [&](const std::string& path) {
    return options.output_parts && !path.empty() ? dist::part_path(path, communicator.rank()) : path;
  };
  require_separate_outputs({options.inputs, written(options.output), written(options.index_output), options.stats},
                           {"the sorted keys", /*sorts_in_place=*/true});
  if (options.output_parts) require_outside_parts(options);
}

}  // namespace rmgsort
