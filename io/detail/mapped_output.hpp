// Writing a file on a memory file system (tmpfs, ramfs) through a shared mapping, from many threads.
// There, write() copies into the page cache under the file's inode lock, one thread at a time: 2.0 to
// 3.0 GB/s on a 4 x H200 host, the bound of a 64 GB sort from /dev/shm to /dev/shm. Page faults
// into a shared mapping of the same file take no inode lock and run side by side: 4.4 GB/s from 64
// threads (tests/bench/host_memory_bench.cu, bench_results/2026-11-22-host-memory-h200x4.md).
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "io/unique_fd.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace rmgsort {

// Whether FD's file lives in memory (tmpfs or ramfs): no disk under it, O_DIRECT means nothing.
[[nodiscard]] bool on_memory_file_system(int fd);

// FD's file opened again for reading and writing, which a shared writable mapping needs; invalid
// when FD was not opened for writing (the file's permissions must not grant what the descriptor did
// not) or the file cannot be opened so.
[[nodiscard]] UniqueFd reopen_for_mapping(int fd);

// Throws the rmgsort::Error "PATH: write failed: ..." for ERR, a failure to store into a page of FD's
// file on a memory file system (MADV_POPULATE_WRITE's, or a read's into a mapping of it): EFAULT, the
// SIGBUS a plain store would have raised, is "No space left on device" when the file system is
// (nearly) full, else "Cannot allocate memory" (a memory limit that counts tmpfs pages).
[[noreturn]] void throw_page_allocation_failure(int fd, const std::string& path, int err);

class MappedOutput {
 public:
  // A writer for FD when it is a regular file on a memory file system, the kernel can populate a
  // mapping and report failure instead of raising SIGBUS (MADV_POPULATE_WRITE, Linux 5.14), and the
  // file can be reopened for reading and writing (a shared writable mapping needs both); else null,
  // and the caller writes as usual. PATH names the file in errors.
  [[nodiscard]] static std::unique_ptr<MappedOutput> open(int fd, std::string path);

  // Writes DATA at byte OFFSET of the file, growing the file to cover it, from up to `threads`
  // threads. Every page is allocated (populated) before it is stored to, so a full file system is an
  // Error naming the file and "No space left on device", never a SIGBUS. Not thread-safe: one write
  // at a time.
  void write(std::span<const std::byte> data, std::uint64_t offset, unsigned threads);

  // Allocates the file's pages in [offset, offset + bytes), growing the file to cover them, as
  // write() does, but stores nothing: a later write() there only copies. Populating is most of a
  // write's cost: 2 GiB from one thread (2-core machine) populated in 0.84 s, then written in 0.44 s,
  // against 1.01 s for the write of fresh pages. Errors as write()'s.
  void populate(std::uint64_t offset, std::uint64_t bytes, unsigned threads);

 private:
  // write() of DATA, or populate() when DATA is null.
  void fill(const std::byte* data, std::uint64_t offset, std::uint64_t bytes, unsigned threads);

  MappedOutput(UniqueFd read_write, std::string path, std::uint64_t size);

  UniqueFd read_write_;
  std::string path_;
  std::uint64_t size_;  // the file's size as this writer left it
};

}  // namespace rmgsort
