#include "dist/rank_agreement.hpp"

#include <exception>
#include <new>

namespace rmgsort::dist {
namespace {

std::string message_of(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace

void agree(const Communicator& communicator, std::exception_ptr failure) {
  const int ranks = communicator.size();
  // The lowest failing rank, or `ranks` when none failed.
  const std::uint64_t failed = communicator.all_min(failure ? std::uint64_t(communicator.rank()) : std::uint64_t(ranks));
  if (failed == std::uint64_t(ranks)) return;
  std::string cause = failure ? message_of(failure) : std::string();
  communicator.broadcast(cause, int(failed));
  if (failure) throw RankFailure(message_of(failure), true);
  throw RankFailure("rank " + std::to_string(failed) + " of " + std::to_string(ranks) + " failed: " + cause, false);
}

}  // namespace rmgsort::dist
