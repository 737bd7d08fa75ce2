#include "report/stats.hpp"

#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <optional>

#include "core/error.hpp"
#include "io/blocking_io.hpp"
#include "io/cleanup.hpp"
#include "io/file_identity.hpp"
#include "io/last_words.hpp"

namespace rmgsort {
namespace {

std::string utc_now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + length, sizeof text - length, ".%03dZ", int(millis));
  return text;
}

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// The kernel's copy of argv: the arguments, each ended by a NUL. rmgsort never rewrites its argv,
// so this is the command line as given, whichever code parsed it.
std::optional<std::vector<std::string>> arguments_of_this_process() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  if (!file) return std::nullopt;
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad() || text.empty()) return std::nullopt;
  std::vector<std::string> arguments;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\0', begin);
    if (end == std::string::npos) end = text.size();
    arguments.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return arguments;
}

// An Error of the statistics' file, named as the option.
[[noreturn]] void rethrow_as_stats_error(const Error& e) {
  throw Error(std::string("--stats: ") + e.what(), e.error_number());
}

}  // namespace

RunStart RunStart::now() { return RunStart{utc_now_iso8601(), host_name(), arguments_of_this_process()}; }

Json stats_header(std::string_view command, std::string_view version, const RunStart& start, const RunEnd& end) {
  return {
      {"schema", kStatsSchema},
      {"status", end.exit_code == 0 ? "ok" : "error"},
      {"exit_code", end.exit_code},
      {"error", end.exit_code == 0 ? Json(nullptr) : Json(end.error)},
      {"command", command},
      {"version", version},
      {"start_time", start.time},
      {"host", string_or_null(start.host)},
      {"command_line", start.command_line ? Json(*start.command_line) : Json(nullptr)},
  };
}

std::uint64_t peak_host_memory_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) throw_errno("--stats", "cannot read the peak resident memory");
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux counts ru_maxrss in KiB
}

StatsOutput::StatsOutput(const std::string& path, std::string_view command, std::string_view version,
                         const RunStart& start)
    : path_(path) {
  if (path.empty()) return;
  // A signal between a temporary file's creation and the arming would leave the old statistics in
  // place: it waits for the arming instead. Not for a FIFO or device, written in place: its open
  // may wait for a reader, and a signal must still end the run then.
  struct stat existing {};
  const bool staged = path != "-" && !is_standard_error_file(path) &&
                      !(::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode));
  std::optional<CleanupSignalsBlocked> blocked;
  if (staged) blocked.emplace();
  if (path == "-" || is_standard_error_file(path)) {
    descriptor_ = path == "-" ? STDOUT_FILENO : STDERR_FILENO;
  } else {
    try {
      file_.emplace(OutputFile::create(path));
    } catch (const Error& e) {
      rethrow_as_stats_error(e);
    }
  }
  arm_for_signals(command, version, start);
}

StatsOutput::~StatsOutput() { disarm_signals(); }

void StatsOutput::arm_for_signals(std::string_view command, std::string_view version, const RunStart& start) {
  if (path_.empty() || armed_) return;
  signal_lines_.clear();
  for (const int signal_number : kCleanupSignals) {
    const char* abbreviation = sigabbrev_np(signal_number);
    const std::string name = abbreviation != nullptr ? std::string("SIG") + abbreviation : std::to_string(signal_number);
    Json json = stats_header(command, version, start, RunEnd{128 + signal_number, "stopped by signal " + name});
    json["signal"] = name;
    signal_lines_.push_back(json_line(json) + '\n');
  }
  // A descriptor, or a device or FIFO written in place, gets the words itself; a file, a staged file
  // of their own, which the handler names over the statistics' path.
  if (descriptor_ >= 0 || file_->staging() == OutputFile::Staging::in_place) {
    arm_last_words(descriptor_ >= 0 ? descriptor_ : file_->fd(), signal_lines_);
    armed_ = true;
    return;
  }
  try {
    signal_file_.emplace(OutputFile::create(path_));
  } catch (const Error& e) {
    rethrow_as_stats_error(e);
  }
  armed_ = arm_last_words(*signal_file_, signal_lines_);
}

void StatsOutput::disarm_signals() noexcept {
  if (!armed_) return;
  disarm_last_words();
  armed_ = false;
}

void StatsOutput::write_file(const Json& json) {
  // Written in place, the statistics cannot be taken back: the handlers' words would follow them.
  if (!file_ || file_->staging() == OutputFile::Staging::in_place) disarm_signals();
  const std::string line = json_line(json) + '\n';
  const auto* bytes = reinterpret_cast<const std::byte*>(line.data());
  // Even in part: a second object after it would not parse.
  if (!file_ || file_->staging() == OutputFile::Staging::in_place) written_in_place_ = true;
  try {
    if (file_) {
      write_all(file_->fd(), path_, bytes, line.size());
      file_->finish_writing();
    } else {
      write_all(descriptor_, descriptor_ == STDOUT_FILENO ? "standard output" : "standard error", bytes, line.size());
    }
  } catch (const Error& e) {
    failed_ = true;
    rethrow_as_stats_error(e);
  }
}

void StatsOutput::prepare(const Json& json) {
  if (path_.empty()) return;
  write_file(json);
}

void StatsOutput::commit() {
  if (!file_) return;
  try {
    file_->commit();
  } catch (const Error& e) {
    failed_ = true;
    rethrow_as_stats_error(e);
  }
}

void StatsOutput::settle() {
  disarm_signals();
  signal_file_.reset();
}

void StatsOutput::write_failure(const Json& json) {
  if (path_.empty() || failed_ || written_in_place_) return;
  // A FIFO or a device keeps its descriptor: closed, a FIFO's reader would take the close for the
  // end, and the open again would wait for a reader that never comes.
  if (descriptor_ < 0 && file_->staging() != OutputFile::Staging::in_place) {
    file_.reset();  // its temporary file goes (a committed one stays, to be replaced by the rename)
    try {
      file_.emplace(OutputFile::create(path_));
    } catch (const Error& e) {
      rethrow_as_stats_error(e);
    }
  }
  write_file(json);
  commit();
  settle();  // the run has ended, and these statistics say why: a later signal leaves them
}

}  // namespace rmgsort
