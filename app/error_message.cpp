#include "app/error_message.hpp"

#include <cerrno>
#include <new>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// What a user can do when memory cannot be had: only sort has --host-memory to lower.
std::string memory_hint(std::string_view command) {
  if (command == "sort") return "lower --host-memory below the process's memory limit, `ulimit -v`, or free memory";
  return "raise the process's memory limit, `ulimit -v`, or free memory";
}

}  // namespace

std::string error_message(const std::exception& error, std::string_view command) {
  if (const auto* ours = dynamic_cast<const Error*>(&error)) {
    if (ours->error_number() == ENOMEM) return std::string(ours->what()) + " (" + memory_hint(command) + ")";
    return ours->what();
  }
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return "out of memory (" + memory_hint(command) + ")";
  return std::string("unexpected error: ") + error.what();
}

}  // namespace rmgsort
