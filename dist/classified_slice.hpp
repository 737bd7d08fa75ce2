// A rank's slice with every record's destination (dist/parallel_destinations.hpp) and, for each
// block of kClassifyBlockRecords records, its records for each rank: what the exchange's counts and
// its rounds both take. A slice in memory is classified once, as one window, and kept so: a byte a
// record up to 256 ranks, two up to 65 536, else four (beside the records themselves, 4 to 100s of
// bytes, cheap), and a u32 a block and rank. A slice read from the input window by window
// (dist/slice_reader.hpp) is classified again each time it is read, by a copy of the classifier as
// it was first given, so that it holds one window's destinations at most.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "dist/destinations.hpp"
#include "dist/parallel_destinations.hpp"
#include "dist/slice_reader.hpp"

namespace rmgsort::dist {

// Bytes a destination takes among RANKS ranks: 1, 2 or 4.
[[nodiscard]] constexpr int destination_width(int ranks) { return ranks <= 256 ? 1 : ranks <= 65536 ? 2 : 4; }

// Calls f(D{}) with D the destinations' type of WIDTH bytes.
template <class F>
decltype(auto) visit_destination_width(int width, F&& f) {
  if (width == 1) return f(std::uint8_t{});
  if (width == 2) return f(std::uint16_t{});
  return f(std::uint32_t{});
}

// Records [first, first + count) of the slice, each record's destination, each block's counts.
struct ClassifiedWindow {
  const std::byte* records = nullptr;
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  const void* destinations = nullptr;  // `count` of the type of destination_width(ranks)
  const std::uint32_t* block_counts = nullptr;  // [block x ranks + rank]

  template <class D>
  [[nodiscard]] const D* destinations_as() const { return static_cast<const D*>(destinations); }
  [[nodiscard]] std::size_t blocks() const {
    return std::size_t((count + kClassifyBlockRecords - 1) / kClassifyBlockRecords);
  }
};

class ClassifiedSlice {
 public:
  // CLASSIFIER: to be given the records of READER's slice in input order, from its first.
  ClassifiedSlice(Destinations classifier, SliceReader& reader, const RecordLayout& layout, SortOrder order,
                  int ranks);

  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] int width() const { return width_; }
  // Back to before the first window.
  void rewind();
  // Reads (when the slice is not in memory) and classifies (when not kept) the next window; false
  // when the slice is done.
  bool next();
  // The current window, valid until the next call of next() or rewind().
  [[nodiscard]] const ClassifiedWindow& window() const { return window_; }
  // Whether the slice is one window, classified once.
  [[nodiscard]] bool kept() const { return reader_.in_memory(); }

 private:
  const Destinations initial_;
  Destinations classifier_;
  SliceReader& reader_;
  RecordLayout layout_;
  SortOrder order_;
  int ranks_;
  int width_;
  std::unique_ptr<std::byte[]> destinations_;
  std::vector<std::uint32_t> block_counts_;
  bool classified_ = false;  // (a kept slice)
  bool started_ = false;
  ClassifiedWindow window_;
};

}  // namespace rmgsort::dist
