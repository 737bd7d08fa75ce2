// app/distributed_sort_steps: a rank's input written after the rank opened it is refused (its
// modification time), so that shares exchanged from records the splitters never saw are not
// committed; an input left alone passes, however often it is asked.
#include "app/distributed_sort_steps.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "app/sort_input.hpp"
#include "core/error.hpp"
#include "io/unique_fd.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

TEST(DistributedInputTest, AnInputWrittenAfterItWasOpenedIsRefusedNamingIt) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("in.u64");
  test::write_plain_file(path, test::pattern_bytes(800));
  const timespec long_ago[2] = {{0, UTIME_OMIT}, {1000000000, 0}};  // any write moves it
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), long_ago, 0), 0);
  SortOptions options;
  options.inputs = {path};
  options.layout = RecordLayout::bare_key(KeyType::u64);
  options.type_option = KeySpec{KeyType::u64, 8};
  JobInput job;
  job.input.emplace(open_sort_input(options));
  job.written = input_write_times(*job.input);
  ASSERT_EQ(job.written.size(), 1u);
  EXPECT_NO_THROW(require_input_unchanged(job));
  EXPECT_NO_THROW(require_input_unchanged(job));
  {
    const UniqueFd file(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    ASSERT_TRUE(file.valid());
    ASSERT_EQ(::pwrite(file.get(), "12345678", 8, 64), 8);
  }
  try {
    require_input_unchanged(job);
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": written while the ranks read it"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rmgsort
