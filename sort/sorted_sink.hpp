// Where sorted keys go, round by round in order: checked when --verify asks (order across rounds,
// and a checksum compared with the input's at the end) and written by a ChunkWriter, whose write of
// one round runs while the next one is sorted.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "report/progress.hpp"
#include "host/checksum.hpp"
#include "host/order_check.hpp"
#include "io/uring_writer.hpp"

namespace rmgsort {

class SortedSink {
 public:
  // EXPECTED_BYTES (0: unknown) is preallocated on a regular output.
  SortedSink(int fd, const std::string& name, std::uint64_t expected_bytes, KeyType type, SortOrder order,
             bool verify, Progress& progress)
      : writer_(fd, name, WriteOptions{}, expected_bytes), order_check_(type, order), width_(key_width(type)),
        verify_(verify), progress_(progress) {}

  // ROUND must stay unchanged until the next call or finish() returns.
  void operator()(std::span<const std::byte> round) {
    if (verify_) {
      order_check_.feed(round.data(), round.size());
      checksum_ += checksum_keys(round.data(), round.size(), width_);
    }
    writer_.append(round);
    progress_.advance(round.size());
  }

  // Waits for the writes; returns why --verify fails ("" when it passes or was not asked for).
  std::string finish(const KeyChecksum& input_checksum) {
    writer_.finish();
    if (!verify_) return "";
    if (const auto at = order_check_.first_disorder()) return "key " + std::to_string(*at) + " is out of order";
    if (checksum_ != input_checksum) return "the sorted keys are not a permutation of the input";
    return "";
  }

 private:
  ChunkWriter writer_;
  OrderChecker order_check_;
  KeyChecksum checksum_;
  std::size_t width_;
  bool verify_;
  Progress& progress_;
};

}  // namespace rmgsort
