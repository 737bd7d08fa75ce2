// Where sorted records go, round by round in order: checked when --verify asks (order across rounds,
// and a checksum of whole records compared with the input's at the end: of every record sorted,
// before --unique leaves any out), filtered by --unique (the first record of each run of equal keys,
// runs going on across rounds) and written by ChunkWriters (the records to the output, their input
// positions to --index-output), whose write of one round runs while the next one is sorted.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/record_layout.hpp"
#include "host/checksum.hpp"
#include "host/order_check.hpp"
#include "io/uring_writer.hpp"
#include "report/progress.hpp"
#include "sort/sort_engine.hpp"
#include "sort/sort_run.hpp"
#include "sort/unique_filter.hpp"

namespace rmgsort {

// Why --verify fails, or "" when the records are in order and a permutation of the input.
[[nodiscard]] inline std::string verify_failure(const RecordLayout& layout, std::optional<std::uint64_t> disorder,
                                                bool same_checksum) {
  const char* what = layout.is_bare_key() ? "key" : "record";
  if (disorder) return std::string(what) + " " + std::to_string(*disorder) + " is out of order";
  if (!same_checksum) return std::string("the sorted ") + what + "s are not a permutation of the input";
  return "";
}

class SortedSink {
 public:
  // Records of LAYOUT (the user's); EXPECTED_RECORDS (0: unknown) sizes the outputs of a regular file.
  SortedSink(const SortRun& run, const RecordLayout& layout, std::uint64_t expected_records)
      : layout_(layout), order_check_(layout, run.order), verify_(run.verify), progress_(*run.progress) {
    if (run.unique) unique_.emplace(layout, run.order);
    const std::uint64_t expected_bytes = expected_records * layout.record_size;
    if (run.output_fd >= 0)
      records_.emplace(run.output_fd, run.output_name, WriteOptions{}, run.reservable(expected_bytes));
    if (run.index_fd >= 0)
      positions_.emplace(run.index_fd, run.index_name, WriteOptions{}, run.reservable(expected_records * 8));
  }

  // ROUND must stay unchanged until the next call or finish() returns (but by the sink: with
  // --unique, it moves the records it keeps to the round's front, SortRun::unique says why it may),
  // for its writers; a sink without writers (no output descriptor) is done with it on return.
  // Returns what is written of it: the round, or with --unique the records kept, at its front.
  SortedRound operator()(const SortedRound& round) {
    if (verify_) {
      order_check_.feed(round.records.data(), round.records.size());
      checksum_ += checksum_records(round.records.data(), round.records.size(), layout_.record_size);
    }
    const SortedRound written = unique_ ? unique_->keep_firsts(round) : round;
    if (records_) records_->append(written.records);
    if (positions_) positions_->append(std::as_bytes(written.positions));
    progress_.advance(round.records.size());
    return written;
  }

  // Records --unique left out so far.
  [[nodiscard]] std::uint64_t duplicates_dropped() const { return unique_ ? unique_->dropped() : 0; }

  // Waits for the writes; returns why --verify fails ("" when it passes or was not asked for).
  std::string finish(const KeyChecksum& input_checksum) {
    if (records_) records_->finish();
    if (positions_) positions_->finish();
    if (!verify_) return "";
    return verify_failure(layout_, order_check_.first_disorder(), checksum_ == input_checksum);
  }

 private:
  RecordLayout layout_;
  std::optional<UniqueFilter> unique_;
  std::optional<ChunkWriter> records_;
  std::optional<ChunkWriter> positions_;
  OrderChecker order_check_;
  KeyChecksum checksum_;
  bool verify_;
  Progress& progress_;
};

}  // namespace rmgsort
