#include "io/record_stream.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace rmgsort {

RecordStream::RecordStream(const InputFile& input, const RecordLayout& layout, std::size_t chunk_bytes,
                           std::span<const std::byte> prefix, CutRecordMessage cut)
    : input_(input), layout_(layout), chunk_bytes_(chunk_bytes), cut_(cut), prefix_(prefix),
      reader_(input, chunk_bytes) {
  RMGSORT_EXPECTS(layout.valid() && chunk_bytes >= layout.record_size, "RecordStream: chunks of at least one record");
}

std::span<const std::byte> RecordStream::next() {
  if (carry_ == 0 && prefix_.empty() && pending_.empty()) {
    // Nothing carried: the reader's chunk is handed on in place, but for the bytes of a record it cuts.
    const std::span<const std::byte> chunk = reader_.next();
    const std::size_t whole_bytes = chunk.size() / layout_.record_size * layout_.record_size;
    if (whole_bytes > 0 || chunk.empty()) {
      pending_ = chunk.subspan(whole_bytes);
      return whole(chunk.first(whole_bytes));
    }
    pending_ = chunk;
  }
  return recut();
}

std::span<const std::byte> RecordStream::whole(std::span<const std::byte> records) {
  bytes_returned_ += records.size();
  return records;
}

// The carried bytes, then the prefix and the reader's chunks, copied into a chunk as full as they
// fill; the bytes of a record it cuts are carried into the next one.
std::span<const std::byte> RecordStream::recut() {
  if (staging_.size() == 0) staging_ = HostBuffer(chunk_bytes_);
  std::size_t filled = carry_;
  if (carry_ > 0) std::memmove(staging_.data(), staging_.data() + staging_used_, carry_);
  carry_ = 0;
  while (filled < chunk_bytes_) {
    // (The reader's chunk is copied whole before the reader is asked for the next.)
    if (pending_.empty()) pending_ = prefix_.empty() ? reader_.next() : std::exchange(prefix_, {});
    if (pending_.empty()) break;
    const std::size_t take = std::min(pending_.size(), chunk_bytes_ - filled);
    std::memcpy(staging_.data() + filled, pending_.data(), take);
    pending_ = pending_.subspan(take);
    filled += take;
  }
  const std::size_t whole_bytes = filled / layout_.record_size * layout_.record_size;
  carry_ = filled - whole_bytes;
  staging_used_ = whole_bytes;
  if (whole_bytes == 0 && carry_ > 0) throw_cut(carry_);  // the end, inside a record
  return whole({staging_.data(), whole_bytes});
}

void RecordStream::throw_cut(std::size_t tail) const {
  const std::string name = input_.display_name();
  if (cut_ == CutRecordMessage::input_bytes) {
    (void)layout_.whole_records(name, bytes_returned_ + tail);
    RMGSORT_EXPECTS(false, "RecordStream: a cut record makes a whole number of records");
  }
  const std::string noun = layout_.is_bare_key() ? "key" : "record";
  throw Error(name + ": the input ends inside a " + noun + " (" + std::to_string(tail) + " bytes after the last whole " +
              std::to_string(layout_.record_size) + "-byte " + noun + ")");
}

}  // namespace rmgsort
