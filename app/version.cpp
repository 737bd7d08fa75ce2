#include "app/version.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "app/commands.hpp"
#include "report/size_parse.hpp"

namespace rmgsort {
namespace {

// CUDA's 1000 x major + 10 x minor: 13000 is "13.0", 12080 "12.8".
std::string cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// One entry of the list: "86-real" (machine code), "90-virtual" (PTX), "120" (both). "90a" or
// "100f" (arch-specific code) counts for that capability only. nullopt for a word that is no
// architecture.
std::optional<bool> entry_runs_on(std::string_view entry, int major, int minor) {
  int number = 0;
  const auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), number);
  if (ec != std::errc() || number < 10) return std::nullopt;
  std::string_view suffix(end, std::size_t(entry.data() + entry.size() - end));
  const bool specific = !suffix.empty() && (suffix.front() == 'a' || suffix.front() == 'f');
  if (specific) suffix.remove_prefix(1);
  if (!suffix.empty() && suffix != "-real" && suffix != "-virtual") return std::nullopt;
  const int capability = major * 10 + minor;
  if (specific) return capability == number;
  const bool machine_code = suffix != "-virtual", ptx = suffix != "-real";
  return (machine_code && major == number / 10 && minor >= number % 10) || (ptx && capability >= number);
}

}  // namespace

std::optional<bool> architectures_run_on(std::string_view architectures, int major, int minor) {
  bool runs = false;
  while (!architectures.empty()) {
    const std::size_t space = architectures.find(' ');
    const std::string_view entry = architectures.substr(0, space);
    architectures.remove_prefix(space == std::string_view::npos ? architectures.size() : space + 1);
    if (entry.empty()) continue;
    const std::optional<bool> entry_runs = entry_runs_on(entry, major, minor);
    if (!entry_runs) return std::nullopt;
    runs = runs || *entry_runs;
  }
  return runs;
}

std::string cuda_version_text(const CudaSummary& summary) {
  if (!summary.built_with_cuda) return "built without CUDA: rmgsort sorts on the CPU\n";
  std::string text = "CUDA runtime " + cuda_version(summary.runtime_version) +
                     " (linked in), GPU code for architectures " + summary.architectures + "\n";
  if (summary.driver_version == 0) return text + "no CUDA driver: rmgsort sorts on the CPU\n";
  text += "CUDA driver " + cuda_version(summary.driver_version) + "\n";
  if (summary.driver_too_old)
    return text + "the CUDA driver is older than the runtime needs: no GPU can be used, rmgsort sorts on the CPU\n";
  if (summary.gpus.empty()) return text + "no GPU: rmgsort sorts on the CPU\n";
  for (const CudaSummary::Gpu& gpu : summary.gpus) {
    text += "GPU " + std::to_string(gpu.ordinal) + ": " + gpu.name + ", " + format_bytes(gpu.total_memory) +
            ", compute capability " + std::to_string(gpu.major) + "." + std::to_string(gpu.minor);
    if (architectures_run_on(summary.architectures, gpu.major, gpu.minor) == false)
      text += " (this build has no GPU code for it)";
    text += "\n";
  }
  return text;
}

int print_version() {
  std::fputs("rmgsort " RMGSORT_VERSION "\n", stdout);
  std::fflush(stdout);  // the version stands even if asking CUDA fails
  std::fputs(cuda_version_text(cuda_summary()).c_str(), stdout);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "rmgsort: standard output: %s\n", std::strerror(errno));
    return kExitError;
  }
  return kExitOk;
}

}  // namespace rmgsort
