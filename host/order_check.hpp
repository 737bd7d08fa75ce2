// Finding the first key that is out of order (in the order of key_order.hpp, NaNs equal to each
// other), in parallel and across chunk boundaries for inputs read piece by piece.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/key_order.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

// Index of the first key k[i] (i >= 1) that must precede k[i - 1], or nullopt if keys[0, n) are in
// `order`. Parallel (oneTBB) for large n; the answer is the smallest such index either way.
template <class T>
[[nodiscard]] std::optional<std::size_t> find_disorder(const T* keys, std::size_t n, SortOrder order);

// Checks a sequence fed chunk by chunk (a file larger than memory). Type-erased over the key type.
class OrderChecker {
 public:
  OrderChecker(KeyType type, SortOrder order) : type_(type), order_(order) {}

  // Feeds the next `bytes` (a multiple of the key width) of the sequence.
  void feed(const std::byte* data, std::uint64_t bytes);

  [[nodiscard]] std::uint64_t keys_seen() const { return keys_seen_; }
  // Index, in the whole sequence, of the first key out of order.
  [[nodiscard]] std::optional<std::uint64_t> first_disorder() const { return first_disorder_; }

 private:
  KeyType type_;
  SortOrder order_;
  std::uint64_t keys_seen_ = 0;
  std::optional<std::uint64_t> first_disorder_;
  std::uint64_t last_key_bits_ = 0;  // the previous chunk's last key, as its bit pattern
};

}  // namespace rmgsort
