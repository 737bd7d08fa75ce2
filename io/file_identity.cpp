#include "io/file_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "core/error.hpp"
#include "io/detail/output_target.hpp"

namespace rmgsort {
namespace {

FileIdentity identity_of(const struct stat& st) {
  return FileIdentity{st.st_dev, st.st_ino, "", S_ISREG(st.st_mode), S_ISCHR(st.st_mode),
                      S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)};
}

}  // namespace

std::optional<FileIdentity> identity_of_descriptor(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return std::nullopt;
  return identity_of(st);
}

std::optional<FileIdentity> identity_of_existing(const std::string& path) {
  struct stat st {};
  if (path.empty() || stat(path.c_str(), &st) != 0) return std::nullopt;
  return identity_of(st);
}

std::optional<FileIdentity> identity_of_output(const std::string& path) {
  std::string target;
  try {
    target = resolve_output_target(path);
  } catch (const Error&) {
    return std::nullopt;  // a refused link: creating the output reports it, named by its option
  }
  if (auto existing = identity_of_existing(target)) return existing;
  const auto [directory, name] = split_directory(target);
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  auto parent = identity_of_existing(directory.empty() ? "." : directory);
  if (!parent) return std::nullopt;
  parent->name = name;
  parent->regular = false;
  parent->character_device = false;
  parent->stream = false;
  return parent;
}

void require_separate_files(const std::vector<WrittenFile>& files, const std::optional<FileIdentity>& input,
                            const std::string& input_name) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const WrittenFile& file = files[i];
    if (!file.identity) continue;
    if (input && input->regular && !file.may_replace_input && *file.identity == *input)
      throw Error(file.label + ": is the input file " + input_name +
                  "; writing it would destroy the input; give it another file");
    for (std::size_t j = 0; j < i; ++j) {
      if (files[j].identity && *files[j].identity == *file.identity && !file.identity->character_device)
        throw Error(file.label + " and " + files[j].label +
                    " are the same file: both would be written into it; give each its own file");
    }
  }
}

void require_standard_error_kept(const std::vector<WrittenFile>& files,
                                 const std::optional<FileIdentity>& stderr_identity) {
  if (!stderr_identity || !stderr_identity->regular) return;
  for (const WrittenFile& file : files) {
    if (file.replaced && file.identity && *file.identity == *stderr_identity)
      throw Error(file.label + ": is the file standard error writes to; replacing it would drop what it holds "
                  "and every message after it; give it a file of its own");
  }
}

bool is_standard_error_file(const std::string& path) {
  const std::optional<FileIdentity> stderr_identity = identity_of_descriptor(STDERR_FILENO);
  if (!stderr_identity || !stderr_identity->regular) return false;
  const std::optional<FileIdentity> identity = identity_of_output(path);
  return identity && *identity == *stderr_identity;
}

std::vector<WrittenFile> written_outputs(const std::string& output, const std::string& index_output,
                                         const std::string& stats, const std::string& stdout_what,
                                         const std::optional<FileIdentity>& stdout_identity) {
  std::vector<WrittenFile> written;
  if (output == "-") {
    written.push_back({stdout_what, stdout_identity});
  } else if (!output.empty()) {
    written.push_back({"-o " + output, identity_of_output(output), /*may_replace_input=*/true, /*replaced=*/true});
  }
  const auto add_written_in_place = [&](const std::string& option, const std::string& path) {
    if (path == "-") {
      written.push_back({option + " - (standard output)", stdout_identity});
    } else if (!path.empty()) {
      written.push_back(
          {option + " " + path, identity_of_output(path), /*may_replace_input=*/false, /*replaced=*/true});
    }
  };
  add_written_in_place("--index-output", index_output);
  add_written_in_place("--stats", stats);
  if (!stats.empty() && stats != "-" && is_standard_error_file(stats)) written.back().replaced = false;
  return written;
}

}  // namespace rmgsort
