// Finding the first key or record that is out of order (in the order contract of core/record_rank.hpp,
// with every NaN equal to every other, or in IEEE order: FloatOrder), in parallel and across chunk
// boundaries for inputs read piece by piece, and counting the records whose key equals the previous
// record's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

// Index of the first key k[i] (i >= 1) that must precede k[i - 1], or nullopt if keys[0, n) are in
// `order`. Parallel (oneTBB) for large n; the answer is the smallest such index either way.
template <class T>
[[nodiscard]] std::optional<std::size_t> find_disorder(const T* keys, std::size_t n, SortOrder order);

// The order a check holds floating-point keys to. Keys of other types have one order: both are it.
enum class FloatOrder {
  // rmgsort's sort order (core/key_order.hpp): -inf < ... < -0.0 < +0.0 < ... < +inf, then every
  // NaN; descending reverses the numbers and keeps the NaNs last.
  total,
  // IEEE 754's comparison, where -0.0 == +0.0; NaNs, which it leaves unordered, are accepted as a
  // run after the last number, in both directions (as rmgsort puts them, and as numpy's np.sort
  // does ascending). Whatever sorts with operator< or np.sort passes; rmgsort's own output too.
  ieee,
};

// What a scan of records in sequence finds.
struct OrderScan {
  std::optional<std::uint64_t> first_disorder;  // the first record whose key must precede the previous one's
  // Records whose key equals the previous record's, as --unique compares them (scan_order below).
  std::uint64_t duplicate_keys = 0;
};

// Scans records[0, n) of LAYOUT (n * record_size bytes) for `order`. Keys compare by their rank words
// (core/record_rank.hpp) with every NaN ranking the same, whatever layout.equal_nans says: a check
// accepts NaNs in any order among themselves. It counts as duplicates the neighbours --unique would
// take for one key: in the total order, NaNs with layout.equal_nans unset (bare float keys) only
// when their bits are the same; FloatOrder::ieee ranks -0.0 with +0.0 and every NaN as one key. Parallel (oneTBB) for large n; the answer does not depend on how the work is split.
[[nodiscard]] OrderScan scan_order(const std::byte* records, std::size_t n, const RecordLayout& layout, SortOrder order,
                                   FloatOrder float_order = FloatOrder::total);

// scan_order()'s first disorder.
[[nodiscard]] std::optional<std::size_t> find_disorder(const std::byte* records, std::size_t n,
                                                       const RecordLayout& layout, SortOrder order,
                                                       FloatOrder float_order = FloatOrder::total);

// The first pair of neighbours out of order, with both keys (for the message that names them).
struct Disorder {
  std::uint64_t index = 0;                         // the record whose key must precede the previous one's
  std::array<std::byte, kMaxBytesKey> previous{};  // record index - 1's key (its first key_size bytes)
  std::array<std::byte, kMaxBytesKey> key{};       // record index's key
};

// Checks a sequence of records fed chunk by chunk (a file larger than memory).
class OrderChecker {
 public:
  OrderChecker(const RecordLayout& layout, SortOrder order, FloatOrder float_order = FloatOrder::total);
  // Bare keys of TYPE.
  OrderChecker(KeyType type, SortOrder order, FloatOrder float_order = FloatOrder::total)
      : OrderChecker(RecordLayout::bare_key(type), order, float_order) {}

  // Feeds the next `bytes` (whole records) of the sequence.
  void feed(const std::byte* data, std::uint64_t bytes);

  [[nodiscard]] std::uint64_t records_seen() const { return records_seen_; }
  [[nodiscard]] std::uint64_t keys_seen() const { return records_seen_; }
  // Index, in the whole sequence, of the first record out of order.
  [[nodiscard]] std::optional<std::uint64_t> first_disorder() const { return scan_.first_disorder; }
  // That record and the previous one's keys, wherever the chunks were cut.
  [[nodiscard]] const std::optional<Disorder>& disorder() const { return disorder_; }
  // Records whose key equals the previous record's, over the whole sequence.
  [[nodiscard]] std::uint64_t duplicate_keys() const { return scan_.duplicate_keys; }

 private:
  RecordLayout layout_;
  SortOrder order_;
  FloatOrder float_order_;
  bool equal_nans_;  // the layout's own (layout_ ranks every NaN the same): what counts as one key
  std::uint64_t records_seen_ = 0;
  OrderScan scan_;
  std::optional<Disorder> disorder_;
  std::array<std::byte, kMaxBytesKey> last_key_{};  // the previous chunk's last key (its first key_size bytes)
};

}  // namespace rmgsort
