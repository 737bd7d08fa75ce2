// A rank's slice of the input, window by window, in input order: from memory when the slice was
// read whole, or read window by window from the input (pread) when the slice is larger than the
// rank's memory allows: every pass of the distributed sort over the slice (the splitters' levels,
// the destinations' counts, the exchange) goes through windows, so that it holds one window at most.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace rmgsort::dist {

class SliceReader {
 public:
  // Reads records [first, first + count) of the slice into DST (whole records; throws on failure).
  using Read = std::function<void(std::uint64_t first, std::uint64_t count, std::byte* dst)>;

  // The COUNT records at RECORDS, in memory.
  SliceReader(const std::byte* records, std::uint64_t count, std::size_t record_size);
  // COUNT records read through READ, a window of window_records() at a time.
  SliceReader(Read read, std::uint64_t count, std::size_t record_size);

  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] std::size_t record_size() const { return record_size_; }
  // The whole slice when it is in memory, else nullptr (and for no record).
  [[nodiscard]] const std::byte* memory() const { return memory_; }
  [[nodiscard]] bool in_memory() const { return memory_ != nullptr || count_ == 0; }
  // The most records one window holds: 1 Mi, or fewer that fill 64 MiB.
  [[nodiscard]] std::uint64_t window_records() const { return window_; }
  // Host memory a reader from the input holds (its window).
  [[nodiscard]] static std::uint64_t window_bytes(std::size_t record_size);

  // Records [first, first + count) of the slice, count <= window_records(); valid until the next call.
  [[nodiscard]] const std::byte* records(std::uint64_t first, std::uint64_t count);

  // Calls f(records, first, count) for every window of the slice, in order.
  template <class F>
  void for_each_window(F&& f) {
    for (std::uint64_t first = 0; first < count_; first += window_) {
      const std::uint64_t n = std::min(window_, count_ - first);
      f(records(first, n), first, n);
    }
  }

 private:
  const std::byte* memory_ = nullptr;
  Read read_;
  std::uint64_t count_ = 0;
  std::size_t record_size_ = 1;
  std::uint64_t window_ = 1;
  std::unique_ptr<std::byte[]> buffer_;
};

}  // namespace rmgsort::dist
