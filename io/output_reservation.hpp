// Allocating a memory file system output's pages ahead of its writes, on a thread of its own. A
// write into a new tmpfs page allocates and zeroes it first, and that, not the copy, bounds a
// write there: one thread's fallocate reserved 16 GiB of /dev/shm in 2.7 s on a 16-core H200 host,
// where page faults from 4 to 16 threads took 3.4-4.0 s (io/output_pages.hpp). Started before the
// input is read, the reservation runs beside the read and the sort, and the writes after them only
// copy.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace rmgsort {

class OutputReservation {
 public:
  // Starts reserving the pages of FD's file [OFFSET, OFFSET + BYTES) when FD is a regular file on
  // tmpfs (and a thread can be started); else null. NAME names the file in errors. The file's size
  // does not change (FALLOC_FL_KEEP_SIZE): its writes grow it as before. A reservation that fails (a
  // full file system, a memory limit, `ulimit -f`) only stops: the writes then allocate what is
  // left and report what they meet.
  [[nodiscard]] static std::unique_ptr<OutputReservation> start(int fd, std::string name, std::uint64_t offset,
                                                                std::uint64_t bytes);
  // Stops after the piece under way.
  ~OutputReservation();
  OutputReservation(const OutputReservation&) = delete;
  OutputReservation& operator=(const OutputReservation&) = delete;

  // Once every write is done: stops the reservation and frees the pages it reserved past the file's
  // end (--unique wrote fewer bytes than reserved). Must not run beside a write, which may grow the
  // file past the size this reads.
  void release_unwritten();
  // The bytes reserved so far.
  [[nodiscard]] std::uint64_t reserved() const { return reserved_.load(); }
  // Whether the reservation has ended by itself: every byte reserved, or a failure stopped it.
  [[nodiscard]] bool ended() const { return ended_.load(); }
  // After release_unwritten(): how long it took to reserve every byte, from start(); nothing when it
  // stopped short (a failure, or the writes were done first).
  [[nodiscard]] std::optional<double> seconds_to_reserve_all() const { return seconds_to_reserve_all_; }

 private:
  OutputReservation(int fd, std::string name, std::uint64_t offset, std::uint64_t bytes);
  void reserve();
  void stop() noexcept;

  int fd_;
  std::string name_;
  std::uint64_t offset_;
  std::uint64_t bytes_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> reserved_{0};
  std::atomic<bool> ended_{false};
  std::optional<double> seconds_to_reserve_all_;  // written by the thread, read once it is joined
  std::thread thread_;
};

}  // namespace rmgsort
