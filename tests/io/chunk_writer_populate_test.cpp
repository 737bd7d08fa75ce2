// ChunkWriter::populate (io/chunk_writer.hpp, MappedOutput::populate): pages allocated ahead on a
// memory file system change nothing in what is written, a writer that populated beyond what it
// appended ends the file right after the data, a full file system is an Error, and on a disk the
// call does nothing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/chunk_writer.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

int create_file(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  return fd;
}

// Writes DATA in two appends after populating [0, POPULATE_END) of the output in two steps.
std::vector<std::byte> write_populated(const std::string& directory, const std::vector<std::byte>& data,
                                       std::uint64_t populate_end, bool* populates = nullptr) {
  test::TempDir dir(directory);
  const std::string path = dir.file("out");
  const int fd = create_file(path);
  {
    WriteOptions options;
    options.mapped_threads = 2;
    ChunkWriter writer(fd, path, options, data.size(), /*write_behind=*/false);
    if (populates != nullptr) *populates = writer.populates();
    writer.populate(0, populate_end / 3);
    writer.populate(populate_end / 3, populate_end);
    const std::size_t half = data.size() / 2;
    writer.append(std::span(data).first(half));
    writer.append(std::span(data).subspan(half));
    writer.finish();
  }
  close(fd);
  return test::read_plain_file(path);
}

TEST(ChunkWriterPopulate, PopulatedPagesChangeNothingWritten) {
  const std::vector<std::byte> data = test::pattern_bytes(130 * kMiB + 5, 3);
  for (std::uint64_t populate_end : {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t(data.size() / 2),
                                     std::uint64_t(data.size()), std::uint64_t(data.size() + 64 * kMiB)}) {
    bool populates = false;
    EXPECT_EQ(write_populated(test::memory_directory(), data, populate_end, &populates), data)
        << "populated to " << populate_end << ": the file ends right after the data";
    EXPECT_TRUE(populates || !test::is_memory_file_system(test::memory_directory()));
  }
}

TEST(ChunkWriterPopulate, NothingOnADisk) {
  const std::vector<std::byte> data = test::pattern_bytes(3 * kMiB + 1, 4);
  bool populates = true;
  EXPECT_EQ(write_populated(test::disk_directory(), data, data.size(), &populates), data);
  if (!test::is_memory_file_system(test::disk_directory())) {
    EXPECT_FALSE(populates);
  }
}

TEST(ChunkWriterPopulate, AFullMemoryFileSystemIsAnError) {
  test::SmallTmpfs tmpfs("1m");
  if (!tmpfs.mounted()) GTEST_SKIP() << tmpfs.why_not();
  const std::string path = tmpfs.file("out");
  const int fd = create_file(path);
  {
    ChunkWriter writer(fd, path, WriteOptions{}, 0, /*write_behind=*/false);
    ASSERT_TRUE(writer.populates());
    try {
      writer.populate(0, 8 * kMiB);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  close(fd);
}

}  // namespace
}  // namespace rmgsort
