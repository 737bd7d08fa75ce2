#include "sort/merge_source.hpp"

#include <utility>

#include "io/chunk_reader.hpp"

namespace rmgsort {
namespace {

class InputSource final : public MergeSource {
 public:
  InputSource(OpenedInput input, std::size_t chunk_bytes)
      : file_(std::move(input.file)), head_(std::move(input.head)), reader_(file_, chunk_bytes) {}

  std::span<const std::byte> next() override {
    if (!head_given_ && !head_.empty()) {
      head_given_ = true;
      return head_;
    }
    head_given_ = true;
    return reader_.next();
  }

 private:
  InputFile file_;  // declared before the reader, which refers to it
  std::vector<std::byte> head_;
  bool head_given_ = false;
  ChunkReader reader_;
};

class RunSource final : public MergeSource {
 public:
  RunSource(const SpillFile& file, std::size_t chunk_bytes) : chunks_(file, 0, chunk_bytes) {}

  std::span<const std::byte> next() override { return chunks_.next(); }

 private:
  SpillRoundChunks chunks_;
};

}  // namespace

std::unique_ptr<MergeSource> input_source(OpenedInput input, std::size_t chunk_bytes) {
  return std::make_unique<InputSource>(std::move(input), chunk_bytes);
}

std::unique_ptr<MergeSource> run_source(const SpillFile& file, std::size_t chunk_bytes) {
  return std::make_unique<RunSource>(file, chunk_bytes);
}

}  // namespace rmgsort
