#include "sort/sorted_prefix_writer.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <span>

namespace rmgsort {
namespace {

// The mapped writes' threads while the sort runs on the threads of the current arena (within --threads).
WriteOptions while_sorting() {
  WriteOptions options;
  options.mapped_threads =
      std::max(1u, SortedPrefixWriter::sort_threads() / prefix_writer_config::kCoresPerMappedThread);
  return options;
}

}  // namespace

unsigned SortedPrefixWriter::sort_threads() {
  return unsigned(std::min(std::size_t(tbb::this_task_arena::max_concurrency()),
                           tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
}

unsigned SortedPrefixWriter::threads_while_sorting() { return while_sorting().mapped_threads; }

SortedPrefixWriter::SortedPrefixWriter(const SortRun& run, const RecordLayout& layout, std::byte* records,
                                       std::uint64_t bytes)
    : records_(records),
      bytes_(bytes),
      record_size_(layout.record_size),
      // Not write-behind: this thread waits for each piece, and buffered writes then copy inside
      // their submitting call (io/chunk_writer.hpp).
      writer_(run.output_fd, run.output_name, while_sorting(), run.reservable(bytes), /*write_behind=*/false) {
  if (run.unique) unique_.emplace(layout, run.order);
  // (--unique writes less than the input, at other offsets: nothing to populate ahead. Pages reserved
  // beside the sort need no populating: populated by this writer too, the same pages were allocated
  // from two sides, and the sort lost a thread.)
  if (writer_.populates() && !run.unique && !run.output_reserved)
    populate_step_ = prefix_writer_config::kPopulateBytesPerThread * while_sorting().mapped_threads;
  thread_ = std::thread([this] { run_writes(); });
}

SortedPrefixWriter::~SortedPrefixWriter() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SortedPrefixWriter::sorted(std::uint64_t records) {
  {
    const std::lock_guard lock(mutex_);
    final_ = std::max(final_, records * record_size_);
  }
  wake_.notify_one();
}

void SortedPrefixWriter::finish() {
  {
    const std::lock_guard lock(mutex_);
    sort_done_ = true;
    final_ = bytes_;
    written_while_sorting_ = written_;
  }
  wake_.notify_one();
  thread_.join();
  if (failure_) std::rethrow_exception(failure_);
  writer_.finish();
}

std::uint64_t SortedPrefixWriter::piece_end() const {
  using namespace prefix_writer_config;
  // Once the sort is done, the rest in one piece: a memory file system's write gives each of its
  // threads 64 MiB at a time (io/detail/mapped_output.cpp), so smaller pieces would use fewer cores.
  if (sort_done_) return final_;
  const std::uint64_t end = std::min(final_, written_ + kMaxPieceBytes);
  if (end == bytes_) return end;  // the last piece: whatever is left
  std::uint64_t aligned = end / kPieceAlignment * kPieceAlignment;
  aligned -= aligned % record_size_;
  return aligned >= written_ + kMinPieceBytes ? aligned : written_;
}

bool SortedPrefixWriter::populate_due() const {
  return populate_step_ > 0 && !sort_done_ && std::max(populated_, written_) < bytes_;
}

void SortedPrefixWriter::run_writes() {
  bool every_core = false;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || written_ == bytes_ || piece_end() > written_ || populate_due(); });
    if (stop_ || written_ == bytes_) return;
    if (piece_end() == written_) {
      // Nothing final to write (the sort's first pass): the pages ahead, so that writing them only copies.
      const std::uint64_t begin = std::max(populated_, written_), end = std::min(bytes_, begin + populate_step_);
      lock.unlock();
      try {
        writer_.populate(begin, end);
      } catch (...) {
        lock.lock();
        failure_ = std::current_exception();
        return;
      }
      lock.lock();
      populated_ = end;
      continue;
    }
    const std::uint64_t begin = written_, end = piece_end();
    const bool sort_done = sort_done_;
    lock.unlock();
    try {
      if (sort_done && !every_core) {
        writer_.set_mapped_threads(0);
        every_core = true;
      }
      write(begin, end);
    } catch (...) {
      lock.lock();
      failure_ = std::current_exception();
      return;
    }
    lock.lock();
    written_ = end;
  }
}

void SortedPrefixWriter::write(std::uint64_t begin, std::uint64_t end) {
  std::byte* piece = records_ + begin;
  std::uint64_t count = (end - begin) / record_size_;
  if (unique_) count = unique_->keep_firsts(piece, nullptr, count);
  writer_.append(std::span<const std::byte>(piece, count * record_size_));
}

}  // namespace rmgsort
