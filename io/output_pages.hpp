// Sorting in the output file's own pages. On a memory file system (tmpfs, ramfs) a file's pages are
// memory: an in-memory sort whose records stay where they lie (bare keys; records sorted as pairs)
// reads its input straight into the output file's shared mapping and sorts it there, so the keys are
// in memory once, not twice, and nothing is written after the sort; rounds (keys larger than the
// GPUs' memory) are partitioned into it from the input read into memory, and each sorted there.
// The read stores into the mapping from every thread: page faults of one tmpfs file run side
// by side, where the kernel's own copy into it (copy_file_range, write()) holds the file's lock,
// one thread at a time. 8 GiB of /dev/shm on a 16-core host: read into the mapping on 16 threads
// 2.1-2.4 s; copy_file_range 5.3 s on one thread, 4.1-4.3 s on 4 or 16; on a 2-core machine 2 GiB
// took 1.5 s read into the mapping, 1.2-2.4 s by copy_file_range on both cores. The radix sort of
// 2^28 u64 keys ran at the same speed in the file's mapping (2.28-2.61 s, 2 cores) as in huge pages
// (2.33-2.37 s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "io/input_sequence.hpp"
#include "io/unique_fd.hpp"

namespace rmgsort {

class OutputPages {
 public:
  // Home for BYTES (> 0) of records in the file of FD from byte OFFSET on (what precedes them, a
  // .npy header, is written through FD afterwards, from its position 0), when FD is an empty regular
  // file on a memory file system, opened for writing, at position 0, not to append (an appended
  // header would land after the records), that can be opened again for reading and writing (a shared
  // writable mapping needs both), and can grow to hold them within the file size limit (`ulimit -f`);
  // else null, and the caller reads into memory and writes as usual.
  // The caller makes sure that no other process writes to the file or truncates it meanwhile (a
  // file staged for this run): a sort under someone else's writes would break. The file is grown to
  // hold them (sparse: no page is allocated yet) and mapped: data(), mapped(). NAME names the file
  // in errors, thrown as rmgsort::Error when the file cannot grow or be mapped.
  [[nodiscard]] static std::unique_ptr<OutputPages> open(int fd, std::string name, std::uint64_t offset,
                                                          std::uint64_t bytes);
  ~OutputPages();
  OutputPages(const OutputPages&) = delete;
  OutputPages& operator=(const OutputPages&) = delete;

  // Reads the regular sequence INPUT (input.size() == the bytes given to open()) into data(), part
  // after part, pieces of a part on up to THREADS threads, telling ON_COPIED the bytes of each piece
  // (from any of them, one piece at a time each). Throws rmgsort::Error naming the part for a failed
  // read or a part that shrank, the output for a page tmpfs could not allocate ("write failed: No
  // space left on device", or "Cannot allocate memory" under a memory limit; never SIGBUS).
  void fill(const InputSequence& input, unsigned threads, const std::function<void(std::uint64_t)>& on_copied = {});

  // Allocates every page of the records while WORK runs on this thread (for rounds partitioned into
  // them: the read of the input), so that stores into them (a partition's, rather than reads) cannot
  // meet a page tmpfs cannot allocate, which would raise SIGBUS; returns when both are done, and
  // how long the reservation took after WORK. What WORK throws is thrown (the reservation stops);
  // else the reservation's errors, as fill()'s. One thread reserves pieces with fallocate while WORK
  // runs (it holds the file's lock: 16 GiB in 2.7 s on an H200 host, where page faults or
  // MADV_POPULATE_WRITE took 3.4-4.0 s on 4 to 16 threads, and leaves WORK the cores); where the
  // file system has no fallocate (ramfs), THREADS threads populate the pieces left once WORK is
  // done. Pages are zeroed when first touched.
  double reserve_while(const std::function<void()>& work, unsigned threads);

  // The records, in the file's shared mapping; what is stored there is the file's.
  [[nodiscard]] std::byte* data() const { return data_; }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_; }
  // The whole mapping, from the start of the page data() is in: page-aligned, for a memory policy
  // (the GPUs' NUMA node) set before fill() first touches its pages.
  [[nodiscard]] std::span<std::byte> mapped() const { return {mapping_, mapping_bytes_}; }

  // The sort is done: unmaps the records, ends the file after the first KEPT bytes of them (--unique
  // left out the rest) and moves FD's position there, where a write of them would have left it.
  // data() is null afterwards.
  void finish(std::uint64_t kept);

 private:
  OutputPages(int fd, UniqueFd read_write, std::string name, std::uint64_t offset, std::uint64_t bytes);
  void map();
  void unmap() noexcept;
  // Reads FILE's data [begin, end) into DESTINATION + begin (the mapping): errors as fill()'s.
  void read_piece(const InputFile& file, std::byte* destination, std::uint64_t begin, std::uint64_t end);
  // Allocates the pages of mapped()[begin, begin + length): by fallocate when FALLOCATE and the file
  // system has it (else false is stored there), else by populating them. Errors as fill()'s.
  void reserve_piece(std::uint64_t begin, std::size_t length, bool& fallocate);

  int fd_;  // the caller's descriptor, whose position finish() moves
  UniqueFd read_write_;
  std::string name_;
  std::uint64_t offset_;  // the records' first byte in the file
  std::uint64_t bytes_;
  std::byte* mapping_ = nullptr;  // from offset_ rounded down to a page
  std::size_t mapping_bytes_ = 0;
  std::byte* data_ = nullptr;
};

}  // namespace rmgsort
