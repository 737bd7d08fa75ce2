#include "sort/merge_window.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/record_rank.hpp"
#include "host/key_format.hpp"
#include "host/merge_prefix.hpp"

namespace rmgsort {

MergeWindow::MergeWindow(std::unique_ptr<MergeSource> source, const RecordLayout& layout, SortOrder order,
                         std::size_t stride, std::size_t chunk_bytes, bool carries_positions,
                         std::uint64_t first_position, WindowInput input)
    : source_(std::move(source)), layout_(layout), order_(order), stride_(stride), chunk_bytes_(chunk_bytes),
      carries_positions_(carries_positions), next_position_(first_position), input_(std::move(input)),
      buffer_(2 * chunk_bytes + stride) {
  RMGSORT_EXPECTS(layout.valid() && stride >= layout.record_size && chunk_bytes > 0 &&
                      !(input_.checksum && stride != layout.record_size),
                  "a merge window of whole records and chunks (an input's, to checksum)");
}

void MergeWindow::refill() {
  const std::size_t left = end_ - begin_;
  if (begin_ > 0) std::memmove(buffer_.data(), buffer_.data() + begin_, left);
  begin_ = 0;
  end_ = left;
  const std::uint64_t whole_before = end_ / stride_;
  while (end_ < buffer_.size()) {
    if (pending_.empty()) pending_ = source_->next();
    if (pending_.empty()) {
      source_done_ = true;
      break;
    }
    const std::size_t take = std::min(pending_.size(), buffer_.size() - end_);
    std::memcpy(buffer_.data() + end_, pending_.data(), take);
    pending_ = pending_.subspan(take);
    end_ += take;
    bytes_loaded_ += take;
  }
  if (!input_.checked) return;
  check_end();
  const std::uint64_t whole_after = end_ / stride_;
  check_loaded(whole_before, whole_after - whole_before);
}

// A .npy stream holds exactly its header's data; any other input ends after a whole record.
void MergeWindow::check_end() const {
  if (input_.npy && input_.expected_bytes &&
      (bytes_loaded_ > *input_.expected_bytes || (source_done_ && bytes_loaded_ != *input_.expected_bytes))) {
    const bool more = bytes_loaded_ > *input_.expected_bytes;
    throw Error(input_.name + ": the .npy header's shape says " + std::to_string(input_.npy_count) + " items of " +
                std::to_string(input_.npy_item_size) + " bytes, but the data " +
                (more ? "goes on after them" : "holds " + std::to_string(bytes_loaded_ / layout_.record_size)));
  }
  if (source_done_ && end_ % stride_ != 0) {
    (void)layout_.whole_records(input_.name, bytes_loaded_);
    RMGSORT_EXPECTS(false, "merge window: a cut record makes a whole number of records");
  }
}

void MergeWindow::check_loaded(std::uint64_t first, std::uint64_t count) {
  if (count == 0) return;
  const std::byte* records = buffer_.data() + first * stride_;
  const std::byte* kept = records_checked_ > 0 ? last_key_.data() : nullptr;
  if (const auto at = first_descent(layout_, order_, records, count, stride_, kept)) {
    const std::byte* key = records + *at * stride_ + layout_.key_offset;
    throw_disorder(records_checked_ + *at, *at == 0 ? kept : key - stride_, key);
  }
  if (input_.checksum) checksum_ += checksum_records(records, count * stride_, stride_);
  std::memcpy(last_key_.data(), records + (count - 1) * stride_ + layout_.key_offset, layout_.key_size);
  records_checked_ += count;
}

void MergeWindow::throw_disorder(std::uint64_t index, const std::byte* previous, const std::byte* key) const {
  throw_merge_disorder(input_.name, layout_, order_, input_.data_start, index, previous, key);
}

namespace {

// Whether the descent from PREVIOUS to KEY (two keys, not records) is one only in the merge's order:
// check's order, where every NaN ranks the same, takes them as equal. That is two NaNs of bare float
// keys, which the merge orders by bit pattern.
bool descent_between_nans(const RecordLayout& layout, SortOrder order, const std::byte* previous,
                          const std::byte* key) {
  if (layout.equal_nans) return false;
  RecordLayout check_order = layout;
  check_order.equal_nans = true;
  check_order.key_offset = 0;
  return visit_rank(check_order, order, [&](const auto& rank) { return compare_ranks(rank, previous, key) == 0; });
}

}  // namespace

void throw_merge_disorder(const std::string& name, const RecordLayout& layout, SortOrder order,
                          std::uint64_t data_start, std::uint64_t index, const std::byte* previous,
                          const std::byte* key) {
  const bool bare = layout.is_bare_key();
  const KeySpec spec = layout.key();
  std::string message = name + ": not in " + (order == SortOrder::ascending ? "ascending" : "descending") +
                        " order: " + (bare ? "key " : "record ") + std::to_string(index) + " is out of order (" +
                        (bare ? "" : "key ") + format_key(key, spec) + " after " + format_key(previous, spec) +
                        ", at byte offset " + std::to_string(data_start + index * layout.record_size) + ")";
  // Two NaNs: in order for check, which takes NaNs in any order (as numpy sorts them), but bare float
  // keys' NaNs merge in sort's order, by bit pattern, so that a merge writes what sort would.
  if (descent_between_nans(layout, order, previous, key))
    message += "; merge orders bare " + std::string(key_type_name(layout.key_type)) +
               " keys' NaNs by their bit patterns, as rmgsort sort writes them (check accepts NaNs in any " +
               "order): sort such inputs together instead, rmgsort sort INPUT... -o OUTPUT";
  throw MergeDisorder(message);
}

}  // namespace rmgsort
