// sort_in_memory_rounds, the rounds driver, with an engine that records what the driver asks of its
// page-locking (the GPUs' engine page-locks the partition buffer while the CPU partitions into it,
// and releases it at the end): every round sorted lies in the page-locked memory, and the release
// comes after the last sort, also when a sort fails (the buffer is freed after it: no copy may
// still reach it). In the output file's own pages, the file holds the sorted keys and nothing is
// written.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "host/checksum.hpp"
#include "host/radix_sort.hpp"
#include "report/progress.hpp"
#include "sort/read_keys.hpp"
#include "sort/rounds_sort.hpp"
#include "sort/sort_engine.hpp"
#include "tests/generate/generated_keys.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kRoundKeys = 1000;

// Bare u32 keys, sorted in place by the CPU radix sort, two sorters at once, as the GPUs' engine
// sorts rounds; every call to the page-locking is checked against the sorts as it comes.
class PinRecordingEngine final : public SortEngine {
 public:
  explicit PinRecordingEngine(int failing_sort = -1) : failing_sort_(failing_sort) {}

  std::string_view name() const override { return "gpu"; }
  std::string devices() const override { return "2 GPUs"; }
  const RecordLayout& layout() const override { return layout_; }
  std::uint64_t round_keys() const override { return kRoundKeys; }
  std::uint64_t host_bytes_beside(std::uint64_t) const override { return 0; }
  std::uint64_t output_bytes(std::uint64_t) const override { return 0; }
  void place(std::byte*, std::size_t) const override {}
  void pin(std::byte*, std::size_t) override { ADD_FAILURE() << "pin() in rounds: they are pinned while partitioned"; }
  void allocate(std::uint64_t) override {}
  unsigned concurrent_sorts() const override { return 2; }
  SortedRound sort(std::byte* records, std::uint64_t count, SortOrder order) override {
    return sort_on(0, records, count, order);
  }
  SortedRound sort_on(unsigned, std::byte* records, std::uint64_t count, SortOrder order) override {
    {
      const std::lock_guard lock(mutex_);
      EXPECT_TRUE(records >= pinned_begin_ && records + count * 4 <= pinned_end_) << "a round outside the pinned memory";
      EXPECT_FALSE(unpinned_) << "a sort after the final release";
      sorting_.insert(records);
      if (int(sorts_++) == failing_sort_) {
        sorting_.erase(records);
        throw std::runtime_error("the GPU fell off");
      }
    }
    radix_sort(reinterpret_cast<std::uint32_t*>(records), count, order);
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // so that the two sorters overlap
    const std::lock_guard lock(mutex_);
    sorting_.erase(records);
    return {{records, count * 4}, {}};
  }
  void pin_while(std::byte* data, std::size_t bytes, const std::function<void()>& work, std::string_view) override {
    {
      const std::lock_guard lock(mutex_);
      EXPECT_EQ(pinned_begin_, nullptr) << "pin_while() twice";
      pinned_begin_ = data;
      pinned_end_ = data + bytes;
    }
    work();
  }
  void unpin_while(const std::function<void()>& work) override {
    {
      const std::lock_guard lock(mutex_);
      EXPECT_TRUE(sorting_.empty()) << "the final release while a sort goes on";
      unpinned_ = true;
    }
    if (work) work();
  }
  std::vector<std::uint64_t> device_bytes_allocated() const override { return {0, 0}; }
  Json stats() const override { return nullptr; }

  std::size_t sorts() const { return sorts_; }
  bool unpinned() const { return unpinned_; }

 private:
  RecordLayout layout_ = RecordLayout::bare_key(KeyType::u32);
  int failing_sort_;
  std::mutex mutex_;
  const std::byte* pinned_begin_ = nullptr;
  const std::byte* pinned_end_ = nullptr;
  std::set<const std::byte*> sorting_;
  std::size_t sorts_ = 0;
  bool unpinned_ = false;
};

KeysInMemory keys_of(const std::vector<std::uint32_t>& input) {
  KeysInMemory keys;
  keys.bytes = input.size() * 4;
  keys.keys = HostBuffer(keys.bytes);
  std::copy(input.begin(), input.end(), keys.keys.as<std::uint32_t>());
  keys.checksum = checksum_keys(keys.keys.data(), keys.bytes, 4);
  return keys;
}

TEST(InMemoryRoundsTest, RoundsAreSortedInThePageLockedMemoryWhichIsReleasedAfterTheLastSort) {
  const std::vector<std::uint32_t> input = testing::generated_keys<std::uint32_t>("uniform", 20000, 11);
  KeysInMemory keys = keys_of(input);
  PinRecordingEngine engine;
  Progress progress(ProgressMode::never);
  SortRun run;
  run.verify = true;  // order and checksum of what is handed on: the rounds sorted in order
  run.progress = &progress;
  const SortOutcome outcome = sort_in_memory_rounds(engine, keys, run);
  EXPECT_EQ(outcome.verify_failure, "");
  ASSERT_TRUE(outcome.rounds);
  const std::size_t rounds = outcome.rounds->round_keys.size();
  ASSERT_GE(rounds, 20u);
  EXPECT_EQ(engine.sorts(), rounds);
  EXPECT_TRUE(engine.unpinned());
}

// A sort that fails part way: the error leaves the driver once the other sorter has stopped and the
// memory is released (the partition buffer is freed after that).
TEST(InMemoryRoundsTest, AFailingSortReleasesThePageLockingOnceTheOtherSorterHasStopped) {
  const std::vector<std::uint32_t> input = testing::generated_keys<std::uint32_t>("uniform", 20000, 12);
  KeysInMemory keys = keys_of(input);
  PinRecordingEngine engine(/*failing_sort=*/9);
  Progress progress(ProgressMode::never);
  SortRun run;
  run.progress = &progress;
  EXPECT_THROW((void)sort_in_memory_rounds(engine, keys, run), std::runtime_error);
  EXPECT_TRUE(engine.unpinned()) << "the page-locking outlived the failed sort";
}

// The rounds partitioned into the output file's own pages (reserved beforehand, after a header's
// bytes): each round is sorted there, the file holds the sorted keys and nothing else after the
// header, --unique closes the kept keys up across rounds and cuts the file after them, the input's
// memory is freed once partitioned, and the page-locking covered the pages.
TEST(InMemoryRoundsTest, RoundsSortedInTheOutputFilesOwnPages) {
  if (!test::is_memory_file_system(test::memory_directory())) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  std::vector<std::uint32_t> input = testing::generated_keys<std::uint32_t>("uniform", 20000, 13);
  for (std::size_t i = 0; i < input.size(); i += 3) input[i] = input[i] % 500;  // runs of equal keys across rounds
  for (const SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    for (const bool unique : {false, true}) {
      for (const std::uint64_t header : {std::uint64_t{0}, std::uint64_t{128}}) {
        SCOPED_TRACE(std::string(order == SortOrder::ascending ? "ascending" : "descending") +
                     (unique ? ", --unique" : "") + ", header " + std::to_string(header));
        const test::TempDir dir(test::memory_directory());
        const std::string path = dir.file("out");
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ASSERT_GE(fd, 0);
        KeysInMemory keys = keys_of(input);
        keys.output_pages = OutputPages::open(fd, path, header, keys.bytes);
        ASSERT_NE(keys.output_pages, nullptr);
        (void)keys.output_pages->reserve_while({}, 2);
        PinRecordingEngine engine;
        Progress progress(ProgressMode::never);
        SortRun run;
        run.order = order;
        run.unique = unique;
        run.verify = true;
        run.output_fd = fd;
        run.output_name = path;
        run.progress = &progress;
        const SortOutcome outcome = sort_in_memory_rounds(engine, keys, run);
        EXPECT_EQ(outcome.verify_failure, "");
        EXPECT_TRUE(outcome.sorted_in_output_file);
        EXPECT_EQ(keys.keys.data(), nullptr) << "the input's memory outlived the partition";
        ASSERT_TRUE(outcome.rounds);
        EXPECT_GE(outcome.rounds->round_keys.size(), 20u);
        std::vector<std::uint32_t> sorted = input;
        radix_sort(sorted.data(), sorted.size(), order);
        if (unique) sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
        EXPECT_EQ(outcome.duplicates_dropped, input.size() - sorted.size());
        std::vector<std::byte> expected(header);
        const auto* bytes = reinterpret_cast<const std::byte*>(sorted.data());
        expected.insert(expected.end(), bytes, bytes + sorted.size() * 4);
        EXPECT_EQ(test::read_plain_file(path), expected);
        EXPECT_EQ(::lseek(fd, 0, SEEK_CUR), off_t(expected.size())) << "the descriptor stands after the keys";
        ::close(fd);
      }
    }
  }
}

}  // namespace
}  // namespace rmgsort
