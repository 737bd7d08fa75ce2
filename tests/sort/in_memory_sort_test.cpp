// sort_in_memory (sort/in_memory_sort.hpp) on the CPU: bare keys are written while they are sorted
// (sort/sorted_prefix_writer.hpp), and the output is the same bytes as a sort written after it
// ends, and so are a sort in the output file's own pages (io/output_pages.hpp) and one written into
// pages reserved beside it (io/output_reservation.hpp, its writer's threads beside a smaller
// arena): every key type, both orders, sizes around the radix sort's thresholds, all keys equal,
// NaNs, +-0 and extremes, with and without --unique and --verify. --verify and records write after
// the sort.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/radix_sort.hpp"
#include "host/radix_sort_config.hpp"
#include "io/output_reservation.hpp"
#include "sort/cpu_engine.hpp"
#include "sort/in_memory_sort.hpp"
#include "sort/unique_filter.hpp"
#include "tests/core/key_types.hpp"
#include "tests/generate/generated_keys.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;

template <class T>
class InMemorySortTest : public ::testing::Test {};
TYPED_TEST_SUITE(InMemorySortTest, AllKeyTypes);

struct Sorted {
  std::vector<std::byte> output;
  SortOutcome outcome;
};

// Sorts KEYS (records of LAYOUT, their checksum taken from INPUT for --verify) with sort_in_memory on
// the CPU into the file FD at PATH (closed here), and reads the file back.
// With RESERVE, the file's pages are reserved beside the sort (io/output_reservation.hpp), as for an
// output on tmpfs sorted on many threads.
Sorted sort_into(KeysInMemory keys, const std::vector<std::byte>& input, const RecordLayout& layout, SortOrder order,
                 bool unique, bool verify, int fd, const std::string& path, bool reserve = false) {
  keys.bytes = input.size();
  if (verify) keys.checksum = checksum_records(input.data(), input.size(), layout.record_size);
  Progress progress(ProgressMode::never);
  SortRun run;
  run.order = order;
  run.unique = unique;
  run.verify = verify;
  run.output_fd = fd;
  run.output_name = path;
  run.progress = &progress;
  std::unique_ptr<OutputReservation> reservation;
  if (reserve) reservation = OutputReservation::start(fd, path, 0, input.size());
  EXPECT_EQ(reservation != nullptr, reserve && !input.empty()) << "a reservation for every output with bytes";
  run.output_reserved = reservation != nullptr;
  CpuEngine engine(layout);
  Sorted sorted;
  sorted.outcome = sort_in_memory(engine, keys, run);
  if (reservation) reservation->release_unwritten();
  keys = KeysInMemory();  // the output's pages unmapped
  ::close(fd);
  sorted.output = test::read_plain_file(path);
  return sorted;
}

int create_output(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0) << path;
  return fd;
}

// Sorts INPUT (records of LAYOUT) with sort_in_memory on the CPU into a file on DIRECTORY.
Sorted sort_to_file(const std::vector<std::byte>& input, const RecordLayout& layout, SortOrder order, bool unique,
                    bool verify, const std::string& directory, bool reserve = false) {
  const test::TempDir dir(directory);
  KeysInMemory keys;
  keys.keys = HostBuffer(std::max<std::size_t>(input.size(), 1));
  if (!input.empty()) std::memcpy(keys.keys.data(), input.data(), input.size());
  return sort_into(std::move(keys), input, layout, order, unique, verify, create_output(dir.file("out")),
                   dir.file("out"), reserve);
}

// Sorts INPUT (records of LAYOUT) with sort_in_memory on the CPU in the pages of an output file in
// memory (io/output_pages.hpp), which the input file is read into; nullopt when there is nothing to
// read (no pages for no bytes).
std::optional<Sorted> sort_in_output_pages(const std::vector<std::byte>& input, const RecordLayout& layout,
                                           SortOrder order, bool unique, bool verify) {
  const test::TempDir dir(test::memory_directory());
  test::write_plain_file(dir.file("in"), input);
  std::vector<InputPart> parts;
  parts.push_back(open_input_part(dir.file("in"), "keys"));
  const InputSequence sequence(std::move(parts), layout);
  const int fd = create_output(dir.file("out"));
  KeysInMemory keys;
  keys.output_pages = OutputPages::open(fd, dir.file("out"), 0, input.size());
  if (!keys.output_pages) {
    ::close(fd);
    return std::nullopt;
  }
  keys.output_pages->fill(sequence, 2);
  return sort_into(std::move(keys), input, layout, order, unique, verify, fd, dir.file("out"));
}

// The bytes the output must be: the keys sorted, then (--unique) the first of each run.
template <class T>
std::vector<std::byte> expected(std::vector<T> keys, SortOrder order, bool unique) {
  radix_sort(keys.data(), keys.size(), order);
  auto* bytes = reinterpret_cast<std::byte*>(keys.data());
  std::size_t count = keys.size();
  if (unique) count = UniqueFilter(RecordLayout::bare_key(KeyTypeOf<T>::value), order).keep_firsts(bytes, nullptr, count);
  return {bytes, bytes + count * sizeof(T)};
}

template <class T>
void expect_written_alike(const std::vector<T>& keys, const std::string& what) {
  const auto* first = reinterpret_cast<const std::byte*>(keys.data());
  const std::vector<std::byte> input(first, first + keys.size() * sizeof(T));
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<T>::value);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    for (bool unique : {false, true}) {
      const std::string how = what + (order == SortOrder::ascending ? ", ascending" : ", descending") +
                              (unique ? ", unique" : "");
      const Sorted streamed = sort_to_file(input, layout, order, unique, false, test::memory_directory());
      EXPECT_EQ(streamed.output, expected(keys, order, unique)) << how;
      EXPECT_LE(streamed.outcome.written_while_sorting, input.size()) << how;
      const Sorted verified = sort_to_file(input, layout, order, unique, true, test::memory_directory());
      EXPECT_EQ(verified.output, streamed.output) << how << ": --verify (written after the sort)";
      EXPECT_EQ(verified.outcome.written_while_sorting, 0u) << how << ": --verify writes after checking";
      EXPECT_EQ(verified.outcome.duplicates_dropped, streamed.outcome.duplicates_dropped) << how;
      if (!test::is_memory_file_system(test::memory_directory())) continue;
      const Sorted reserved = sort_to_file(input, layout, order, unique, false, test::memory_directory(), true);
      EXPECT_EQ(reserved.output, streamed.output) << how << ": into pages reserved beside the sort";
      EXPECT_EQ(reserved.outcome.duplicates_dropped, streamed.outcome.duplicates_dropped) << how;
      for (bool verify : {false, true}) {
        const std::optional<Sorted> in_pages = sort_in_output_pages(input, layout, order, unique, verify);
        EXPECT_EQ(in_pages.has_value(), !input.empty()) << how << ": pages for every input with bytes";
        if (!in_pages) continue;
        EXPECT_EQ(in_pages->output, streamed.output) << how << (verify ? ", verified" : "") << ": in the output's pages";
        EXPECT_TRUE(in_pages->outcome.sorted_in_output_file) << how;
        EXPECT_EQ(in_pages->outcome.written_while_sorting, 0u) << how;
        EXPECT_TRUE(in_pages->outcome.verify_failure.empty()) << how << ": " << in_pages->outcome.verify_failure;
        EXPECT_EQ(in_pages->outcome.duplicates_dropped, streamed.outcome.duplicates_dropped) << how;
      }
    }
  }
}

TYPED_TEST(InMemorySortTest, WrittenWhileSortedAsWrittenAfter) {
  using T = TypeParam;
  using namespace radix_config;
  std::uint64_t seed = 21;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, kSequentialKeys, kSequentialKeys + 1,
                        (std::size_t{1} << 21) + 3}) {
    for (const char* distribution : {"uniform", "zero", "special", "zipf:1.2"}) {
      expect_written_alike(testing::generated_keys<T>(distribution, n, seed++),
                           std::string(distribution) + " n=" + std::to_string(n));
    }
  }
}

TEST(InMemorySortDiskTest, WrittenWhileSortedToADiskFile) {
  const auto keys = testing::generated_keys<std::uint64_t>("uniform", (std::size_t{1} << 21) + 1, 4);
  const auto* first = reinterpret_cast<const std::byte*>(keys.data());
  const std::vector<std::byte> input(first, first + keys.size() * 8);
  const Sorted sorted = sort_to_file(input, RecordLayout::bare_key(KeyType::u64), SortOrder::descending, false, false,
                                     test::disk_directory());
  EXPECT_EQ(sorted.output, expected(keys, SortOrder::descending, false));
}

TEST(InMemorySortRecordsTest, RecordsAreWrittenAfterTheirSort) {
  // 16-byte records with a u64 key at offset 4: sorted as pairs or by tags, never streamed.
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::u64, 8}, 16, 4);
  CpuEngine engine(layout);
  EXPECT_FALSE(engine.hand_prefixes_to([](std::uint64_t) {}));
  const auto input = test::pattern_bytes(16 * 100000, 3);
  const Sorted sorted = sort_to_file(input, layout, SortOrder::ascending, false, false, test::memory_directory());
  EXPECT_EQ(sorted.outcome.written_while_sorting, 0u);
  EXPECT_EQ(sorted.output.size(), input.size());
}

}  // namespace
}  // namespace rmgsort
