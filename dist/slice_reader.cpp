#include "dist/slice_reader.hpp"

#include <algorithm>

namespace rmgsort::dist {
namespace {

constexpr std::uint64_t kWindowRecords = std::uint64_t{1} << 20;
constexpr std::uint64_t kWindowBytes = std::uint64_t{64} << 20;

std::uint64_t window_for(std::size_t record_size) {
  return std::max<std::uint64_t>(1, std::min(kWindowRecords, kWindowBytes / record_size));
}

}  // namespace

SliceReader::SliceReader(const std::byte* records, std::uint64_t count, std::size_t record_size)
    : memory_(records), count_(count), record_size_(record_size), window_(window_for(record_size)) {}

SliceReader::SliceReader(Read read, std::uint64_t count, std::size_t record_size)
    : read_(std::move(read)), count_(count), record_size_(record_size), window_(window_for(record_size)) {}

std::uint64_t SliceReader::window_bytes(std::size_t record_size) { return window_for(record_size) * record_size; }

const std::byte* SliceReader::records(std::uint64_t first, std::uint64_t count) {
  if (memory_ != nullptr || count == 0) return memory_ + first * record_size_;
  if (!buffer_) buffer_ = std::make_unique_for_overwrite<std::byte[]>(window_ * record_size_);
  read_(first, count, buffer_.get());
  return buffer_.get();
}

}  // namespace rmgsort::dist
