#include "app/error_message.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <new>
#include <system_error>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "io/cleanup.hpp"
#include "io/output_file.hpp"
#include "report/printable.hpp"
#include "report/progress.hpp"

namespace rmgsort {
namespace {

// What a user can do when descriptors run out: whichever file it was (an input, a spill file, an
// io_uring), the cause is the limit, which rmgsort raises to its hard limit itself where it can.
std::string open_files_hint() {
  rlimit limit{};
  const std::string now = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                              ? " is " + std::to_string(limit.rlim_cur)
                              : "";
  return "the process's open-file limit, `ulimit -n`," + now + ": raise it";
}

// The shell limits that bound this process's memory, as a user would raise them: the ones set
// (`ulimit -d` alone bounds malloc's heap and anonymous mappings as well since Linux 4.7), else
// `ulimit -v`, the usual one.
std::string memory_limits_set() {
  const auto is_set = [](int resource) {
    rlimit limit{};
    return getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
  };
  const bool address_space = is_set(RLIMIT_AS);
  const bool data = is_set(RLIMIT_DATA);
  if (address_space && data) return "`ulimit -v` and `ulimit -d`";
  return data ? "`ulimit -d`" : "`ulimit -v`";
}

// What a user can do when memory cannot be had: sort and merge have --host-memory to lower.
std::string memory_hint(std::string_view command) {
  const std::string limits = memory_limits_set();
  if (command == "sort" || command == "merge")
    return "lower --host-memory below the process's memory limit, " + limits + ", or free memory";
  return "raise the process's memory limit, " + limits + ", or free memory";
}

}  // namespace

std::string error_message(const std::exception& error, std::string_view command) {
  if (const auto* ours = dynamic_cast<const Error*>(&error)) {
    if (ours->error_number() == ENOMEM) return std::string(ours->what()) + " (" + memory_hint(command) + ")";
    if (ours->error_number() == EPIPE) return std::string(ours->what()) + " (the reader closed the pipe early)";
    if (ours->error_number() == EMFILE) return std::string(ours->what()) + " (" + open_files_hint() + ")";
    return ours->what();
  }
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return "out of memory (" + memory_hint(command) + ")";
  // A thread the kernel would not start: std::thread's system_error, or oneTBB's runtime_error
  // ("pthread_create has failed: ..."), whose messages alone name no cause.
  constexpr std::string_view kTbbThreadFailure = "pthread_create has failed: ";
  std::string thread_failure;
  if (const auto* system = dynamic_cast<const std::system_error*>(&error);
      system != nullptr && system->code() == std::errc::resource_unavailable_try_again)
    thread_failure = system->code().message();
  else if (std::string_view(error.what()).starts_with(kTbbThreadFailure))
    thread_failure = std::string(error.what()).substr(kTbbThreadFailure.size());
  if (!thread_failure.empty())
    return "cannot start a thread: " + thread_failure +
           " (the process's limits leave no room for another: `ulimit -u`, `ulimit -v`; or give fewer --threads)";
  return std::string("unexpected error: ") + error.what();
}

bool ends_by_sigpipe(const std::exception& error) {
  const auto* ours = dynamic_cast<const Error*>(&error);
  return ours != nullptr && ours->error_number() == EPIPE && !sigpipe_inherited_ignored();
}

int exit_status_of(const std::exception& error) { return ends_by_sigpipe(error) ? kExitClosedPipe : kExitError; }

std::string uncommitted_outputs(const std::optional<OutputFile>& output, const std::optional<OutputFile>& index) {
  std::string streamed;
  for (const std::optional<OutputFile>* file : {&output, &index})
    if (file->has_value() && !(*file)->can_take_back())
      streamed += (streamed.empty() ? "" : " and ") + (*file)->display_name();
  if (streamed.empty()) return "nothing was committed";
  return "what was already written to " + streamed + " cannot be taken back: discard it";
}

void print_error_line(const std::string& text) { std::fprintf(stderr, "rmgsort: %s\n", without_controls(text).c_str()); }

void print_statistics_not_written(const std::exception& error) noexcept {
  try {
    print_error_line(std::string(error.what()) + " (the failed run's statistics were not written)");
  } catch (...) {
    // Out of memory for the line: the run's own error still follows.
  }
}

void print_failure(const std::string& message, int exit_status) {
  const std::string json = json_progress_failure(message, exit_status);
  if (!json.empty()) std::fprintf(stderr, "%s\n", json.c_str());
  print_error_line(message);
}

}  // namespace rmgsort
