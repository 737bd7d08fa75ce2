// The spill file of one partitioning pass (sort/spill_sort.hpp): an anonymous file in --temp-dir, or
// anonymous memory, that takes whole chunks of records grouped by round, and gives each round back as
// the concatenation of its segments, one per chunk, in append order (so records keep their order).
//
// In a directory the file has no name another process could see or that could outlive the process:
// it is created with O_TMPFILE (or, where the file system refuses that, created exclusively and
// unlinked at once, its name registered for removal on signals meanwhile). Only its descriptor keeps
// it, and even SIGKILL leaves nothing behind. A pass holds one file, however many rounds it makes.
// Where each round's segment lies in each chunk is a table of one row per chunk (the chunk's offset
// and its rounds' ends). Rows are gathered in a page of bounded size and the full page is appended
// to the file too, so the memory the table takes does not grow with the input.
//
// In memory (records that fit memory but not one sort of the engine) the "file" is SpillMemory:
// anonymous memory reserved whole before the first chunk and backed from every core at once, chunks
// copied in with memcpy and rounds copied out (or, for a pass that reads a round again, lent without
// a copy). A tmpfs file (memfd) would allocate and zero each page inside write() one fault at a time:
// 2.0 GB/s written on a 16-thread host, against 31 GB/s for anonymous memory populated in parallel.
// What it costs: the records spilled, exactly (the plan's spill_memory), at every depth (a round
// partitioned again is written over its own bytes, see SpillMemory::reuse_round), and the table
// apart on the heap, 8 + 4 * rounds bytes per chunk appended (the input's chunks are a sixteenth of
// --host-memory, at most 64 MiB, and the spill is less than --host-memory: a few KiB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/host_buffer.hpp"
#include "io/temp_dir.hpp"
#include "io/unique_fd.hpp"

namespace rmgsort {

class BlockQueue;
class SpillFile;

// The memory a spill file in memory writes its chunks to, front to back: one or more extents of
// whole records, seen as one range of size() bytes.
class SpillMemory {
 public:
  // BYTES of anonymous memory, every page backed now from THREADS threads (io/host_buffer.hpp
  // populate_pages), so that chunks are copied in at memory speed. Throws rmgsort::Error("spill
  // memory: cannot allocate N bytes of host memory: ...") when the memory cannot be mapped; memory
  // mapped that the machine then cannot back ends the process as any first touch would.
  static SpillMemory reserve(std::uint64_t bytes, unsigned threads);
  // The bytes round ROUND of FILE (in memory, appending over) takes, in the round's order, for the
  // spill file of a pass that reads that round, and only that round, once, front to back through
  // SpillRoundChunks (spill_sort's pass over a round too large). Safe: those chunks are lent where
  // they lie, none read ahead, and that pass appends each chunk only after it has classified it,
  // the same bytes as it read (positions are appended on the input's pass only): its writes stay
  // behind its reads of the same range, and never need more. FILE must outlive the result.
  static SpillMemory reuse_round(const SpillFile& file, std::size_t round);

  [[nodiscard]] std::uint64_t size() const { return size_; }

 private:
  friend class SpillFile;
  friend class SpillRoundReader;
  struct Extent {
    std::byte* data;
    std::uint64_t bytes;
  };
  SpillMemory() = default;
  // Where [offset, offset + bytes) lies: F(pointer, bytes) for each extent's piece of it, in order.
  template <class F>
  void pieces(std::uint64_t offset, std::uint64_t bytes, F&& f) const;
  // The extent holding OFFSET (< size()) and how far into it.
  [[nodiscard]] std::size_t extent_at(std::uint64_t offset, std::uint64_t& into) const;

  HostBuffer owned_;  // the reservation (none for a reused round)
  std::vector<Extent> extents_;
  std::vector<std::uint64_t> starts_;  // of each extent in the range
  std::uint64_t size_ = 0;
  unsigned threads_ = 1;  // that copy chunks in and rounds out
};

class SpillFile {
 public:
  // An empty file in TEMP_DIR for chunks of records in ROUNDS rounds (at least 1), whose table
  // pages take at most TABLE_BYTES of memory (at least one row). Throws rmgsort::Error naming the
  // directory as TEMP_DIR.name does ("--temp-dir /x: cannot create a spill file: Read-only file system").
  SpillFile(const TempDir& temp_dir, std::size_t rounds, std::size_t table_bytes);
  // An empty spill file in MEMORY, named "spill memory", for chunks in ROUNDS rounds (at least 1)
  // of at most memory.size() bytes in all.
  SpillFile(SpillMemory memory, std::size_t rounds);
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends CHUNK (at most 4 GiB), whose bytes are grouped by round: round r is
  // [round_ends[r - 1], round_ends[r]) (0 for r = 0), and round_ends.back() == chunk.size(). One
  // thread at a time. Throws rmgsort::Error naming the directory ("...: No space left on device"), or
  // "spill memory" when the chunks outgrow its reservation.
  void append(std::span<const std::byte> chunk, std::span<const std::uint64_t> round_ends);
  // Writes the rows not yet written and frees the page: call once, after the last append and before
  // any round is read.
  void finish_appending();

  [[nodiscard]] std::size_t rounds() const { return rounds_; }
  [[nodiscard]] std::uint64_t round_bytes(std::size_t round) const { return round_bytes_[round]; }
  [[nodiscard]] bool in_memory() const { return !fd_.valid(); }
  // "--temp-dir DIR: spill file" (TempDir's name) or "spill memory", how errors name the file.
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  friend class SpillRoundReader;
  friend class SpillMemory;
  struct Page {
    std::uint64_t offset = 0;  // in the file
    std::uint32_t rows = 0;
  };
  // A page holds page_rows_ rows: their chunk offsets (u64), then for each round the rows' ends of
  // that round (u32), so that a reader of one round reads three short columns of it.
  [[nodiscard]] std::size_t page_bytes() const { return page_rows_ * (8 + 4 * rounds_); }
  void write(const std::byte* data, std::size_t bytes);
  void write_page();
  void append_in_memory(std::span<const std::byte> chunk, std::span<const std::uint64_t> round_ends);

  std::string name_;
  UniqueFd fd_;  // none in memory
  std::size_t rounds_;
  std::size_t page_rows_;
  HostBuffer page_;  // the page being filled (none once appending is over, or in memory)
  std::uint32_t rows_in_page_ = 0;
  std::vector<Page> pages_;
  // In memory: the records, and the table whole, row by row: each chunk's offset, and its rounds'
  // ends (rounds_ a row).
  SpillMemory memory_;
  std::vector<std::uint64_t> chunk_offsets_;
  std::vector<std::uint32_t> chunk_ends_;
  std::vector<std::uint64_t> round_bytes_;
  std::uint64_t size_ = 0;
  bool appending_ = true;
};

// One round of a finished SpillFile, read front to back. The file must outlive the reader. Memory,
// for a file in a directory: three columns of a page (16 bytes a row) and an io_uring of a few dozen
// requests; in memory, none.
class SpillRoundReader {
 public:
  SpillRoundReader(const SpillFile& file, std::size_t round);
  ~SpillRoundReader();
  SpillRoundReader(const SpillRoundReader&) = delete;
  SpillRoundReader& operator=(const SpillRoundReader&) = delete;

  // Reads the round's next bytes into DST, CAPACITY at most; returns how many (fewer only at the
  // round's end). The segments are read through io_uring, many at once, by the kernel's workers in
  // parallel; in memory, copied by the memory's threads. Throws rmgsort::Error naming the file.
  std::size_t read(std::byte* dst, std::size_t capacity);
  // In memory only: the round's next bytes where they lie, at most MOST, without a copy; fewer where
  // a segment (or an extent of a reused round) ends, so whole records when those are; empty at the
  // round's end. Valid while the file is, and until a pass that reuses the round writes over them.
  std::span<const std::byte> lend(std::size_t most);
  // Passes over the round's next BYTES (at most bytes_left()) without reading them.
  void skip(std::uint64_t bytes);
  [[nodiscard]] std::uint64_t bytes_left() const { return left_; }

 private:
  friend class SpillMemory;
  // The next segment's bytes not yet passed (loads pages as needed, or in memory reads the table
  // whole); false at the round's end.
  bool next_segment(std::uint64_t& offset, std::uint64_t& bytes);
  // Pieces of at most CAPACITY bytes of the next segments, passed, as F(offset, bytes); returns
  // their bytes.
  template <class F>
  std::uint64_t take(std::uint64_t capacity, std::uint64_t most_per_piece, F&& f);
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
// Memory: two chunks and a SpillRoundReader's. In memory the chunks are lent where they lie
// (SpillRoundReader::lend), no buffer and no copy.
class SpillRoundChunks {
 public:
  SpillRoundChunks(const SpillFile& file, std::size_t round, std::size_t chunk_bytes);
  // The round's next CHUNK_BYTES (fewer only at its end; in memory, also where a segment ends);
  // empty at the end. Valid until the next call (in memory, see SpillRoundReader::lend). Throws
  // rmgsort::Error naming the file.
  std::span<const std::byte> next();

 private:
  void read_ahead();

  SpillRoundReader reader_;
  std::size_t chunk_bytes_;
  HostBuffer buffers_[2];  // none in memory
  int filling_ = 0;
  std::future<std::size_t> ahead_;  // declared last: waited for before the buffers go
};

}  // namespace rmgsort
