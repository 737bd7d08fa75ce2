// SortedPrefixWriter (sort/sorted_prefix_writer.hpp): whatever prefixes it is told, in whatever
// steps and from whichever thread, the output is the records, whole and in order (with --unique, the
// first of each run of equal keys, runs going on across pieces); to a disk file, to a memory file
// system's mapping and to a pipe; a failed write is an Error from finish(), and a writer left
// without finish() stops.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "sort/sorted_prefix_writer.hpp"
#include "sort/unique_filter.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using test::TempDir;

// N u64 keys in ascending order, each value REPEAT times.
std::vector<std::uint64_t> sorted_keys(std::size_t n, std::size_t repeat = 1) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = 1000 + i / repeat * 3;
  return keys;
}

std::vector<std::byte> bytes_of(const std::vector<std::uint64_t>& keys) {
  std::vector<std::byte> bytes(keys.size() * sizeof(std::uint64_t));
  if (!bytes.empty()) std::memcpy(bytes.data(), keys.data(), bytes.size());
  return bytes;
}

SortRun run_to(int fd, const std::string& name, bool unique = false) {
  SortRun run;
  run.output_fd = fd;
  run.output_name = name;
  run.unique = unique;
  return run;
}

const RecordLayout kU64 = RecordLayout::bare_key(KeyType::u64);

// Writes KEYS through a SortedPrefixWriter to a new file in DIRECTORY, telling it the prefixes
// STEPS (records, growing) from another thread, as a sort would, then finish(); returns the file.
std::vector<std::byte> write_in_steps(const std::string& directory, std::vector<std::uint64_t> keys,
                                      const std::vector<std::uint64_t>& steps, bool unique = false) {
  const TempDir dir(directory);
  const std::string path = dir.file("out");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0);
  {
    SortedPrefixWriter writer(run_to(fd, path, unique), kU64, reinterpret_cast<std::byte*>(keys.data()),
                              keys.size() * sizeof(std::uint64_t));
    std::thread sorter([&] {
      for (std::uint64_t k : steps) writer.sorted(k);
    });
    sorter.join();
    writer.finish();
    EXPECT_LE(writer.written_while_sorting(), keys.size() * sizeof(std::uint64_t));
  }
  ::close(fd);
  return test::read_plain_file(path);
}

// The steps a sort of N records might tell: every STRIDE records, then N.
std::vector<std::uint64_t> steps_of(std::uint64_t n, std::uint64_t stride) {
  std::vector<std::uint64_t> steps;
  for (std::uint64_t k = stride; k < n; k += stride) steps.push_back(k);
  if (n > 0) steps.push_back(n);
  return steps;
}

TEST(SortedPrefixWriterTest, EveryRecordOnceInOrderWhateverTheSteps) {
  // 5 Mi keys (40 MiB): several pieces of kMinPieceBytes; strides that cut pieces anywhere.
  const std::size_t n = (std::size_t{5} << 20) + 7;
  const auto keys = sorted_keys(n);
  for (const std::string& directory : {test::disk_directory(), test::memory_directory()}) {
    for (std::uint64_t stride : {std::uint64_t{1} << 14, std::uint64_t{1000003}, std::uint64_t{3} << 20, n}) {
      EXPECT_EQ(write_in_steps(directory, keys, steps_of(n, stride)), bytes_of(keys))
          << directory << ", stride " << stride;
    }
    EXPECT_EQ(write_in_steps(directory, keys, {}), bytes_of(keys)) << directory << ": nothing told before finish()";
  }
}

TEST(SortedPrefixWriterTest, SmallAndEmptyOutputs) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}}) {
    const auto keys = sorted_keys(n);
    for (const std::string& directory : {test::disk_directory(), test::memory_directory()})
      EXPECT_EQ(write_in_steps(directory, keys, steps_of(n, 1)), bytes_of(keys)) << n << " keys, " << directory;
  }
}

TEST(SortedPrefixWriterTest, UniqueKeepsTheFirstOfRunsThatCrossPieces) {
  const std::size_t n = (std::size_t{3} << 20) + 5;
  for (std::size_t repeat : {std::size_t{1}, std::size_t{3}, std::size_t{1} << 20, n}) {
    const auto keys = sorted_keys(n, repeat);
    std::vector<std::uint64_t> want = keys;
    UniqueFilter filter(kU64, SortOrder::ascending);
    want.resize(filter.keep_firsts(reinterpret_cast<std::byte*>(want.data()), nullptr, want.size()));
    EXPECT_EQ(write_in_steps(test::memory_directory(), keys, steps_of(n, 999983), /*unique=*/true), bytes_of(want))
        << "each key " << repeat << " times";
    EXPECT_EQ(write_in_steps(test::disk_directory(), keys, steps_of(n, 1 << 20), /*unique=*/true), bytes_of(want))
        << "each key " << repeat << " times, disk";
  }
}

TEST(SortedPrefixWriterTest, WritesToAPipe) {
  const std::size_t n = (std::size_t{2} << 20) + 3;
  auto keys = sorted_keys(n);
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  std::vector<std::byte> received;
  std::thread reader([&] {
    std::byte buffer[1 << 16];
    for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
      received.insert(received.end(), buffer, buffer + got);
  });
  {
    SortedPrefixWriter writer(run_to(pipe_fds[1], "stdout"), kU64, reinterpret_cast<std::byte*>(keys.data()), n * 8);
    for (std::uint64_t k : steps_of(n, 77777)) writer.sorted(k);
    writer.finish();
  }
  ::close(pipe_fds[1]);
  reader.join();
  ::close(pipe_fds[0]);
  EXPECT_EQ(received, bytes_of(keys));
}

TEST(SortedPrefixWriterTest, AFullDeviceIsAnErrorFromFinish) {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  const std::size_t n = std::size_t{2} << 20;
  auto keys = sorted_keys(n);
  SortedPrefixWriter writer(run_to(fd, "out.bin"), kU64, reinterpret_cast<std::byte*>(keys.data()), n * 8);
  writer.sorted(n / 2);  // the first piece fails while the "sort" goes on
  try {
    writer.finish();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out.bin"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  ::close(fd);
}

TEST(SortedPrefixWriterTest, AFullMemoryFileSystemIsAnErrorFromFinish) {
  test::SmallTmpfs tmpfs("1m");
  if (!tmpfs.mounted()) GTEST_SKIP() << tmpfs.why_not();
  const std::string path = tmpfs.file("out");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  const std::size_t n = std::size_t{4} << 20;  // 32 MiB into 1 MiB
  auto keys = sorted_keys(n);
  {
    SortedPrefixWriter writer(run_to(fd, path), kU64, reinterpret_cast<std::byte*>(keys.data()), n * 8);
    for (std::uint64_t k : steps_of(n, 1 << 20)) writer.sorted(k);
    EXPECT_THROW(writer.finish(), Error);
  }
  ::close(fd);
}

TEST(SortedPrefixWriterTest, AWriterLeftWithoutFinishStops) {
  const TempDir dir(test::memory_directory());
  const std::string path = dir.file("out");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  const std::size_t n = std::size_t{4} << 20;
  auto keys = sorted_keys(n);
  for (std::uint64_t told : {std::uint64_t{0}, n / 3, n}) {
    SortedPrefixWriter writer(run_to(fd, path), kU64, reinterpret_cast<std::byte*>(keys.data()), n * 8);
    if (told > 0) writer.sorted(told);
  }  // (the sort failed): the destructor returns, having written at most what it was told
  EXPECT_LE(::lseek(fd, 0, SEEK_END), off_t(n * 8));
  ::close(fd);
}

}  // namespace
}  // namespace rmgsort
