#include "io/sequence_reading.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "io/io_tuning.hpp"

namespace rmgsort {
namespace {

using io_tuning::kInitialStreamBytes;
using io_tuning::kReadStepBytes;

// A part that a regular sequence's readers read: a regular file (a known empty stream has nothing).
bool has_data(const InputPart& part) { return part.file.regular && part.file.size > 0; }

}  // namespace

ReadStats read_sequence_file(const InputSequence& input, std::byte* dst, const ReadOptions& options,
                             const BlockCallback& on_block) {
  RMGSORT_EXPECTS(input.regular(), "read_sequence_file reads a regular sequence");
  ReadStats total;
  std::uint64_t start = 0;  // the part's first byte in the concatenation, and in DST
  for (const InputPart& part : input.parts()) {
    if (!has_data(part)) continue;
    BlockCallback shifted;
    if (on_block) {
      shifted = [&on_block, start](std::uint64_t offset, const std::byte* data, std::size_t length) {
        on_block(start + offset, data, length);
      };
    }
    std::optional<InputFile> spare;
    const ReadStats stats = read_file(part_file(part, spare), dst + start, part.file.size, options, shifted);
    total.direct_bytes += stats.direct_bytes;
    total.buffered_bytes += stats.buffered_bytes;
    total.threads = std::max(total.threads, stats.threads);
    total.resubmissions += stats.resubmissions;
    start += part.file.size;
  }
  total.direct = total.direct_bytes > 0;
  return total;
}

HostBuffer read_sequence_prefix(InputSequence& input, std::uint64_t limit_bytes, std::uint64_t& bytes_read,
                                bool& complete, const std::function<void(std::size_t)>& on_read) {
  complete = true;
  // One byte beyond the limit tells an input that ends exactly at the limit from a longer one.
  const std::uint64_t most = limit_bytes + 1;
  HostBuffer buffer(std::size_t(std::min(kInitialStreamBytes, most)));
  bytes_read = 0;
  for (;;) {
    if (bytes_read == buffer.size()) {
      if (bytes_read >= most) {
        complete = false;
        break;
      }
      buffer.grow(std::size_t(std::min(most, std::max<std::uint64_t>(2 * buffer.size(), 1))));
    }
    const std::size_t want = std::min(buffer.size() - bytes_read, kReadStepBytes);
    const std::size_t got = input.read(buffer.data() + bytes_read, want);
    bytes_read += got;
    if (on_read && got > 0) on_read(got);
    if (got < want) break;
  }
  buffer.shrink(bytes_read);
  return buffer;
}

SequenceRecords::SequenceRecords(InputSequence& input, const RecordLayout& layout, std::size_t chunk_bytes,
                                 std::span<const std::byte> prefix)
    : input_(input), layout_(layout), chunk_bytes_(chunk_bytes) {
  RMGSORT_EXPECTS(layout.valid() && chunk_bytes >= layout.record_size,
                  "SequenceRecords: chunks of at least one record");
  RMGSORT_EXPECTS(prefix.empty() || !input.regular(), "SequenceRecords: only a stream has a prefix");
  const std::size_t whole = prefix.size() / layout.record_size * layout.record_size;
  prefix_ = prefix.first(whole);
  carried_ = prefix.subspan(whole);
}

SequenceRecords::~SequenceRecords() = default;

std::span<const std::byte> SequenceRecords::next() {
  return input_.regular() ? next_of_file() : next_of_stream();
}

std::span<const std::byte> SequenceRecords::next_of_file() {
  const std::vector<InputPart>& parts = input_.parts();
  for (;;) {
    if (!part_stream_) {
      while (part_ < parts.size() && !has_data(parts[part_])) ++part_;
      if (part_ == parts.size()) return {};
      // Its size was checked to be whole records when it was opened.
      part_stream_ = std::make_unique<RecordStream>(part_file(parts[part_], part_file_), layout_, chunk_bytes_);
      ++part_;
    }
    const std::span<const std::byte> chunk = part_stream_->next();
    if (!chunk.empty()) return chunk;
    part_stream_.reset();  // its last chunk was handed on by the call before
    part_file_.reset();    // (after the stream that read it)
  }
}

std::span<const std::byte> SequenceRecords::next_of_stream() {
  const std::size_t whole_chunk = chunk_bytes_ / layout_.record_size * layout_.record_size;
  if (!prefix_.empty()) {
    const std::span<const std::byte> records = prefix_.first(std::min(prefix_.size(), whole_chunk));
    prefix_ = prefix_.subspan(records.size());
    return records;
  }
  if (chunk_.size() == 0) chunk_ = HostBuffer(whole_chunk);
  std::size_t filled = carried_.size();
  std::memcpy(chunk_.data(), carried_.data(), filled);
  carried_ = {};
  filled += input_.read(chunk_.data() + filled, whole_chunk - filled);
  // read() returns fewer than asked only at the end, and every part ends on a record (or throws).
  RMGSORT_EXPECTS(filled % layout_.record_size == 0, "SequenceRecords: a stream's parts end on whole records");
  return {chunk_.data(), filled};
}

}  // namespace rmgsort
