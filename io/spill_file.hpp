// The spill file of one partitioning pass (sort/spill_sort.hpp): an anonymous file in --temp-dir, or
// in memory, that takes whole chunks of records grouped by round, and gives each round back as the
// concatenation of its segments, one per chunk, in append order (so records keep their order).
//
// The file has no name another process could see or that could outlive the process: in a directory
// it is created with O_TMPFILE (or, where the file system refuses that, created exclusively and
// unlinked at once, its name registered for removal on signals meanwhile); in memory it is a memfd
// (records that fit memory but not one sort of the engine). Only its descriptor keeps it, and even
// SIGKILL leaves nothing behind. A pass holds one file, however many rounds it makes.
//
// Where each round's segment lies in each chunk is a table of one row per chunk (the chunk's offset
// and its rounds' ends). Rows are gathered in a page of bounded size and the full page is appended
// to the file too, so the memory the table takes does not grow with the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/host_buffer.hpp"
#include "io/unique_fd.hpp"

namespace rmgsort {

class BlockQueue;

class SpillFile {
 public:
  // An empty file in TEMP_DIR, or in anonymous memory when TEMP_DIR is empty, for chunks of records
  // in ROUNDS rounds (at least 1), whose table pages take at most TABLE_BYTES of memory (at least one
  // row). Throws rmgsort::Error naming --temp-dir ("--temp-dir /tmp: cannot create a spill file:
  // Read-only file system"), or "spill memory".
  SpillFile(const std::string& temp_dir, std::size_t rounds, std::size_t table_bytes);
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends CHUNK (at most 4 GiB), whose bytes are grouped by round: round r is
  // [round_ends[r - 1], round_ends[r]) (0 for r = 0), and round_ends.back() == chunk.size(). One
  // thread at a time. Throws rmgsort::Error naming --temp-dir or the memory ("...: No space left on
  // device").
  void append(std::span<const std::byte> chunk, std::span<const std::uint64_t> round_ends);
  // Writes the rows not yet written and frees the page: call once, after the last append and before
  // any round is read.
  void finish_appending();

  [[nodiscard]] std::size_t rounds() const { return rounds_; }
  [[nodiscard]] std::uint64_t round_bytes(std::size_t round) const { return round_bytes_[round]; }
  [[nodiscard]] int fd() const { return fd_.get(); }
  // "--temp-dir DIR: spill file" or "spill memory", how errors name the file.
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  friend class SpillRoundReader;
  struct Page {
    std::uint64_t offset = 0;  // in the file
    std::uint32_t rows = 0;
  };
  // A page holds page_rows_ rows: their chunk offsets (u64), then for each round the rows' ends of
  // that round (u32), so that a reader of one round reads three short columns of it.
  [[nodiscard]] std::size_t page_bytes() const { return page_rows_ * (8 + 4 * rounds_); }
  void write(const std::byte* data, std::size_t bytes);
  void write_page();

  std::string name_;
  UniqueFd fd_;
  std::size_t rounds_;
  std::size_t page_rows_;
  HostBuffer page_;  // the page being filled (none once appending is over)
  std::uint32_t rows_in_page_ = 0;
  std::vector<Page> pages_;
  std::vector<std::uint64_t> round_bytes_;
  std::uint64_t size_ = 0;
  bool appending_ = true;
};

// One round of a finished SpillFile, read front to back. The file must outlive the reader. Memory:
// three columns of a page (16 bytes a row) and an io_uring of a few dozen requests.
class SpillRoundReader {
 public:
  SpillRoundReader(const SpillFile& file, std::size_t round);
  ~SpillRoundReader();
  SpillRoundReader(const SpillRoundReader&) = delete;
  SpillRoundReader& operator=(const SpillRoundReader&) = delete;

  // Reads the round's next bytes into DST, CAPACITY at most; returns how many (fewer only at the
  // round's end). The segments are read through io_uring, many at once, by the kernel's workers in
  // parallel. Throws rmgsort::Error naming the file.
  std::size_t read(std::byte* dst, std::size_t capacity);
  // Passes over the round's next BYTES (at most bytes_left()) without reading them.
  void skip(std::uint64_t bytes);
  [[nodiscard]] std::uint64_t bytes_left() const { return left_; }

 private:
  // The next segment's bytes not yet passed (loads pages as needed); false at the round's end.
  bool next_segment(std::uint64_t& offset, std::uint64_t& bytes);
  void load_page(std::size_t page);

  const SpillFile& file_;
  std::size_t round_;
  std::uint64_t left_;
  std::size_t page_ = 0;  // the next page to load
  // The loaded page's rows: their chunks' offsets, and where this round starts and ends in each.
  // (Mapped buffers, not vectors: a page's columns can be megabytes, and freed heap memory of that
  // size would stay resident.)
  HostBuffer columns_;
  std::uint64_t* offsets_ = nullptr;
  std::uint32_t* starts_ = nullptr;
  std::uint32_t* ends_ = nullptr;
  std::size_t rows_ = 0;
  std::size_t row_ = 0;  // the current row of the loaded page
  std::uint64_t passed_ = 0;                  // bytes of the current row's segment passed
  std::unique_ptr<BlockQueue> queue_;
};

// One round of a finished SpillFile in chunks, read into two buffers in turn: the next chunk is read
// while the caller works on this one (a round partitioned again is classified as it is read).
// Memory: two chunks and a SpillRoundReader's.
class SpillRoundChunks {
 public:
  SpillRoundChunks(const SpillFile& file, std::size_t round, std::size_t chunk_bytes);
  // The round's next CHUNK_BYTES (fewer only at its end); empty at the end. Valid until the next
  // call. Throws rmgsort::Error naming the file.
  std::span<const std::byte> next();

 private:
  void read_ahead();

  SpillRoundReader reader_;
  HostBuffer buffers_[2];
  int filling_ = 0;
  std::future<std::size_t> ahead_;  // declared last: waited for before the buffers go
};

}  // namespace rmgsort
