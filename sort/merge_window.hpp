// What a merge holds of one of the inputs of its pass: a window of records loaded and not yet merged,
// refilled from its source (sort/merge_source.hpp) as the merge takes them, so that memory stays
// bounded whatever the input's length. Loading checks what the input promised: that its records are
// in order (the merge's order: host/merge_prefix.hpp's first_descent), that it ends after a whole
// record, and that a .npy stream holds the data its header states; and it sums their checksum for
// --verify.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/error.hpp"
#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "core/record_layout.hpp"
#include "host/checksum.hpp"
#include "host/merge_run.hpp"
#include "io/host_buffer.hpp"
#include "sort/merge_source.hpp"

namespace rmgsort {

// An input of the merge is not in the order asked for: exit code 1, as check's disorder. The message
// names the input, the record, its byte offset and both keys.
class MergeDisorder : public Error {
 public:
  using Error::Error;
};

// NAME's record INDEX is out of ORDER: "NAME: not in ascending order: key 4 is out of order (4 after 5,
// at byte offset 16)", or for records "record 2 is out of order (key 0 after 11, at byte offset 26)",
// as check words it. KEY and PREVIOUS point at the two keys (LAYOUT's key_size bytes); DATA_START
// is the first record's byte offset in the input (a .npy header's length).
[[noreturn]] void throw_merge_disorder(const std::string& name, const RecordLayout& layout, SortOrder order,
                                       std::uint64_t data_start, std::uint64_t index, const std::byte* previous,
                                       const std::byte* key);

// What a window knows of the input it reads, for its checks and their messages. A run a pass wrote
// needs none (it was merged from checked inputs): `checked` false.
struct WindowInput {
  bool checked = false;                        // check the order and the end
  bool checksum = false;                       // sum the checked records' checksum (--verify)
  std::string name;                            // for messages
  std::uint64_t data_start = 0;                // the first record's byte offset in the input (a .npy header's length)
  std::optional<std::uint64_t> expected_bytes;  // a .npy stream: the data its header states
  bool npy = false;
  std::uint64_t npy_count = 0, npy_item_size = 0;  // its header's shape, for messages
};

class MergeWindow {
 public:
  // Records of LAYOUT, STRIDE bytes apart (LAYOUT's size, or 8 more when they carry their positions,
  // CARRIES_POSITIONS; else the first one's position is FIRST_POSITION), from SOURCE, whose next()
  // gives at most CHUNK_BYTES. Memory: 2 CHUNK_BYTES + STRIDE (refilled when a chunk fits).
  MergeWindow(std::unique_ptr<MergeSource> source, const RecordLayout& layout, SortOrder order, std::size_t stride,
              std::size_t chunk_bytes, bool carries_positions, std::uint64_t first_position, WindowInput input);

  // There is room for a chunk and the source has not ended.
  [[nodiscard]] bool wants_refill() const {
    return !source_done_ && buffer_.size() - (end_ - begin_) >= chunk_bytes_;
  }
  // Moves what is left to the front and loads until the window is full or the source ends, checking
  // the records loaded. Throws MergeDisorder for records out of order, rmgsort::Error for an input
  // that ends inside a record or disagrees with its .npy header, and for a failed read.
  void refill();

  // The records loaded and not yet merged. Not empty unless ended().
  [[nodiscard]] MergeRun run() const {
    return {buffer_.data() + begin_, (end_ - begin_) / stride_, stride_, carries_positions_, next_position_};
  }
  // All that is left of the input is in the window.
  [[nodiscard]] bool ended() const { return source_done_; }
  // The merge took the first RECORDS of run().
  void consume(std::uint64_t records) {
    begin_ += records * stride_;
    next_position_ += records;
  }

  // The checksum of the whole records loaded so far (a checked input's, when asked for).
  [[nodiscard]] const KeyChecksum& checksum() const { return checksum_; }

 private:
  void check_loaded(std::uint64_t first, std::uint64_t count);
  void check_end() const;
  [[noreturn]] void throw_disorder(std::uint64_t index, const std::byte* previous, const std::byte* key) const;

  std::unique_ptr<MergeSource> source_;
  std::span<const std::byte> pending_;  // of the source's last chunk, not yet loaded
  RecordLayout layout_;
  SortOrder order_;
  std::size_t stride_;
  std::size_t chunk_bytes_;
  bool carries_positions_;
  std::uint64_t next_position_;  // the position of the record at begin_
  WindowInput input_;
  HostBuffer buffer_;
  std::size_t begin_ = 0;  // the first record not yet merged
  std::size_t end_ = 0;    // past the bytes loaded (whole records, then the first bytes of one)
  bool source_done_ = false;
  std::uint64_t bytes_loaded_ = 0;
  std::uint64_t records_checked_ = 0;
  std::array<std::byte, kMaxBytesKey> last_key_{};  // the last record checked's key
  KeyChecksum checksum_;
};

}  // namespace rmgsort
