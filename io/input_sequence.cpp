#include "io/input_sequence.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "io/blocking_io.hpp"
#include "io/npy_input.hpp"

namespace rmgsort {
namespace {

// A part whose data is known to be empty: a stream that ended inside the bytes read to tell its
// format, having sent none.
bool known_empty(const InputPart& part) { return part.ended && part.head.empty(); }

// Reads BYTES of FILE's data (a regular file) at AT into DST: all of them, as the file had them at
// open. Throws rmgsort::Error naming the file for a failed read, or one that ends before (it shrank).
void pread_exactly(const InputFile& file, std::byte* dst, std::size_t bytes, std::uint64_t at) {
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::pread(file.fd, dst + got, bytes - got, off_t(file.data_offset + at + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno(file.display_name(), "read failed");
    if (n == 0)
      throw Error(shrank_message(file.display_name(), file.data_offset + at + got, file.end()));
    got += std::size_t(n);
  }
}

}  // namespace

InputPart open_input_part(const std::string& path, std::string_view what) {
  InputPart part;
  part.file = open_input(path);
  refuse_character_device(part.file, what, NullDevice::accepted);
  NpyInput npy = read_npy_header(part.file);
  part.npy = std::move(npy.header);
  part.head = std::move(npy.stream_head);
  // read_npy_header asks a stream for kNpyMagicBytes: fewer came only because it ended.
  part.ended = !part.file.regular && !part.npy && part.head.size() < kNpyMagicBytes;
  return part;
}

std::size_t inputs_held_open_at_most(std::size_t limit) { return std::max<std::size_t>(limit / 2, 1); }

void close_until_read(InputPart& part) {
  if (part.file.is_stdin() || part.closed || part.file.fd < 0) return;
  if (known_empty(part)) {  // nothing left to read: its descriptor goes, and nothing is opened again
    part.file = InputFile(part.file.path, -1, false, 0);
    return;
  }
  if (!part.file.regular) return;
  part.closed = probe_input(part.file);
  InputFile closing = std::move(part.file);
  part.file = InputFile(closing.path, -1, true, closing.size);
  part.file.data_offset = closing.data_offset;
}

const InputFile& part_file(const InputPart& part, std::optional<InputFile>& spare) {
  if (!part.closed) return part.file;
  spare = reopen_input(*part.closed, "rmgsort read its inputs");
  return *spare;
}

InputSequence::InputSequence(std::vector<InputPart> parts, const RecordLayout& layout)
    : parts_(std::move(parts)), layout_(layout) {
  RMGSORT_EXPECTS(!parts_.empty() && layout.valid(), "InputSequence: at least one part, a valid layout");
  regular_ = std::all_of(parts_.begin(), parts_.end(),
                         [](const InputPart& part) { return part.file.regular || known_empty(part); });
  for (const InputPart& part : parts_) {
    if (!name_.empty()) name_ += ", ";
    name_ += part.file.display_name();
    if (regular_) {
      starts_.push_back(size_);
      size_ += part.file.size;
    }
  }
}

std::size_t InputSequence::read_at(std::byte* dst, std::size_t bytes, std::uint64_t offset) const {
  RMGSORT_EXPECTS(regular_, "InputSequence::read_at reads a regular sequence");
  // The last part that starts at or before OFFSET (empty parts share their successor's start).
  std::size_t p = std::size_t(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin());
  std::size_t got = 0;
  for (p = p == 0 ? 0 : p - 1; p < parts_.size() && got < bytes; ++p) {
    const std::uint64_t at = offset + got - starts_[p];  // in the part's data
    if (at >= parts_[p].file.size) continue;
    std::optional<InputFile> spare;
    const InputFile& file = part_file(parts_[p], spare);
    const std::size_t want = std::size_t(std::min<std::uint64_t>(bytes - got, file.size - at));
    pread_exactly(file, dst + got, want, at);
    got += want;
  }
  return got;
}

std::size_t InputSequence::read(std::byte* dst, std::size_t bytes) {
  RMGSORT_EXPECTS(!regular_, "InputSequence::read reads a stream");
  std::size_t done = 0;
  while (done < bytes && current_ < parts_.size()) {
    const InputPart& part = parts_[current_];
    const std::string name = part.file.display_name();
    if (part_bytes_ == 0 && !part.file.regular) enlarge_pipe_buffer(part.file.fd);
    std::size_t got = 0;
    bool part_ended = false;
    if (part.file.regular) {
      // By position, up to its size at open, as the regular readers read it.
      got = std::size_t(std::min<std::uint64_t>(bytes - done, part.file.size - part_bytes_));
      const InputFile& file = part.closed && current_file_ ? *current_file_ : part_file(part, current_file_);
      pread_exactly(file, dst + done, got, part_bytes_);
      part_ended = part_bytes_ + got == part.file.size;
    } else if (part_bytes_ < part.head.size()) {
      got = std::min(bytes - done, std::size_t(part.head.size() - part_bytes_));
      std::memcpy(dst + done, part.head.data() + part_bytes_, got);
      part_ended = part.ended && part_bytes_ + got == part.head.size();
    } else if (part.ended) {
      part_ended = true;  // its end was met already: the descriptor is not read again (a terminal would wait)
    } else {
      got = read_full(part.file.fd, name, dst + done, bytes - done);
      part_ended = got < bytes - done;
    }
    part_bytes_ += got;
    done += got;
    if (part.npy && part_bytes_ > part.npy->data_bytes())
      throw Error(name + ": the .npy header states " + std::to_string(part.npy->count) + " items of " +
                  std::to_string(part.npy->item_size) + " bytes (" + std::to_string(part.npy->data_bytes()) +
                  " bytes of data), but the stream holds more: " + std::to_string(part_bytes_) + " bytes so far");
    if (part_ended) {
      finish_part(part);
      ++current_;
      part_bytes_ = 0;
      current_file_.reset();
    }
  }
  bytes_read_ += done;
  return done;
}

// PART, read to its end (part_bytes_ of data), holds whole records: those of its .npy header, exactly.
void InputSequence::finish_part(const InputPart& part) const {
  const std::string name = part.file.display_name();
  if (part.npy && part_bytes_ != part.npy->data_bytes())
    throw Error(name + ": the .npy header states " + std::to_string(part.npy->count) + " items of " +
                std::to_string(part.npy->item_size) + " bytes (" + std::to_string(part.npy->data_bytes()) +
                " bytes of data), but the stream ends after " + std::to_string(part_bytes_) + " bytes of data");
  (void)layout_.whole_records(name, part_bytes_);
}

}  // namespace rmgsort
