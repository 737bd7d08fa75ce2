#include "io/output_reservation.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <system_error>
#include <utility>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// Reserved a piece at a time, so that stopping waits for at most one: 64 MiB took 11-16 ms on an
// H200 host (16 GiB in 2.7 s, io/output_pages.hpp).
constexpr std::uint64_t kPieceBytes = std::uint64_t{64} << 20;

}  // namespace

std::unique_ptr<OutputReservation> OutputReservation::start(int fd, std::string name, std::uint64_t offset,
                                                                    std::uint64_t bytes) {
  struct stat st {};
  struct statfs fs {};
  // tmpfs: ramfs, the other memory file system, has no fallocate.
  if (bytes == 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fstatfs(fd, &fs) != 0 || fs.f_type != TMPFS_MAGIC)
    return nullptr;
  std::unique_ptr<OutputReservation> reservation(new OutputReservation(fd, std::move(name), offset, bytes));
  try {
    reservation->thread_ = std::thread([r = reservation.get()] { r->reserve(); });
  } catch (const std::system_error&) {
    return nullptr;  // no thread to spare (a limit on processes): the writes allocate as before
  }
  return reservation;
}

OutputReservation::OutputReservation(int fd, std::string name, std::uint64_t offset, std::uint64_t bytes)
    : fd_(fd), name_(std::move(name)), offset_(offset), bytes_(bytes) {}

OutputReservation::~OutputReservation() { stop(); }

void OutputReservation::reserve() {
  const auto start = std::chrono::steady_clock::now();
  // The first piece whatever comes: an output smaller than a piece is reserved whole, however soon
  // its writes are done.
  for (std::uint64_t done = 0; done < bytes_ && (done == 0 || !stop_.load());) {
    const std::uint64_t length = std::min(kPieceBytes, bytes_ - done);
    if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, off_t(offset_ + done), off_t(length)) != 0) {
      if (errno == EINTR) continue;
      break;  // the writes meet whatever stopped it
    }
    done += length;
    reserved_.store(done);
  }
  if (reserved_.load() == bytes_)
    seconds_to_reserve_all_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ended_.store(true);
}

void OutputReservation::stop() noexcept {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void OutputReservation::release_unwritten() {
  stop();
  // Pages reserved past the end stay allocated (hidden) until a truncation: one to the same size
  // frees them.
  struct stat st {};
  if (fstat(fd_, &st) != 0) throw_errno(name_, "cannot read its size");
  if (std::uint64_t(st.st_size) < offset_ + reserved_.load() && ftruncate(fd_, st.st_size) != 0)
    throw_errno(name_, "write failed");
}

}  // namespace rmgsort
