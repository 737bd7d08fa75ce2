// Shared helpers of the io/ tests: temporary directories on a disk and on tmpfs, deterministic file
// contents, a pipe fed from a thread, and running a piece of a test in a child process.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/input_file.hpp"

namespace rmgsort::test {

// A fresh directory under BASE, removed with its contents at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& base) {
    std::string pattern = base + "/rmgsort-io-test-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp in " + base + ": " + std::strerror(errno));
    path_ = pattern;
  }
  ~TempDir() {
    nftw(
        path_.c_str(), [](const char* p, const struct stat*, int, FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline bool is_memory_file_system(const std::string& path) {
  struct statfs fs {};
  return statfs(path.c_str(), &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

// A directory on a disk file system for O_DIRECT tests: $RMGSORT_TEST_DISK_DIR, else /var/tmp, else
// /tmp, else the working directory (the build directory), whichever first is not in memory.
inline std::string disk_directory() {
  if (const char* env = std::getenv("RMGSORT_TEST_DISK_DIR")) return env;
  for (const char* candidate : {"/var/tmp", "/tmp", "."}) {
    if (access(candidate, W_OK) == 0 && !is_memory_file_system(candidate)) return candidate;
  }
  return ".";
}

inline std::string memory_directory() { return "/dev/shm"; }

// A file system of TYPE mounted with DATA (mount(2)'s options) on a fresh directory under
// disk_directory(), unmounted at the end of the test. Mounting needs root; mounted() says whether it
// is up and why_not() why not (for GTEST_SKIP).
class TestMount {
 public:
  TestMount(const std::string& type, const std::string& data) : dir_(disk_directory()) {
    if (geteuid() != 0) {
      why_not_ = "mounting " + type + " needs root";
    } else if (mount("rmgsort-test", dir_.path().c_str(), type.c_str(), 0,
                     data.empty() ? nullptr : data.c_str()) != 0) {
      why_not_ = "cannot mount " + type + ": " + std::strerror(errno);
    } else {
      mounted_ = true;
    }
  }
  ~TestMount() {
    if (mounted_) umount2(dir_.path().c_str(), MNT_DETACH);  // before dir_ removes the directory
  }
  TestMount(const TestMount&) = delete;
  TestMount& operator=(const TestMount&) = delete;
  [[nodiscard]] bool mounted() const { return mounted_; }
  [[nodiscard]] const std::string& why_not() const { return why_not_; }
  [[nodiscard]] std::string file(const std::string& name) const { return dir_.file(name); }

 private:
  TempDir dir_;
  bool mounted_ = false;
  std::string why_not_;
};

// A tmpfs of SIZE (mount's size=, e.g. "1m"): a small file system to fill.
class SmallTmpfs : public TestMount {
 public:
  explicit SmallTmpfs(const std::string& size) : TestMount("tmpfs", "size=" + size) {}
};

// A ramfs: a memory file system without fallocate.
class Ramfs : public TestMount {
 public:
  Ramfs() : TestMount("ramfs", "") {}
};

// Whether files in DIRECTORY can be read with O_DIRECT and 4096-byte alignment: probed, not assumed.
inline bool supports_direct_io(const std::string& directory) {
  const std::string probe = directory + "/.rmgsort-direct-probe-" + std::to_string(getpid());
  bool supported = false;
  {
    std::ofstream out(probe, std::ios::binary);
    std::vector<char> block(8192, 'x');
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  const int fd = open(probe.c_str(), O_RDONLY | O_DIRECT);
  if (fd >= 0) {
    void* buffer = nullptr;
    if (posix_memalign(&buffer, 4096, 4096) == 0) {
      supported = pread(fd, buffer, 4096, 4096) == 4096;
      free(buffer);
    }
    close(fd);
  }
  unlink(probe.c_str());
  return supported;
}

// Deterministic, position-dependent bytes: any shifted, lost or duplicated range shows.
inline std::vector<std::byte> pattern_bytes(std::size_t bytes, std::uint64_t seed = 1) {
  std::vector<std::byte> data(bytes);
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull;
  for (std::size_t i = 0; i < bytes; i += 8) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::memcpy(data.data() + i, &z, std::min<std::size_t>(8, bytes - i));
  }
  return data;
}

inline void write_plain_file(const std::string& path, const std::vector<std::byte>& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::vector<std::byte> read_plain_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> data(bytes.size());
  if (!bytes.empty()) std::memcpy(data.data(), bytes.data(), bytes.size());
  return data;
}

// Drops PATH's clean pages from the page cache (after writing them back), so that reads go to disk.
inline void evict_from_page_cache(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  fdatasync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
}

inline bool file_exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

// Names in DIRECTORY other than . and ..
inline std::vector<std::string> directory_entries(const std::string& directory) {
  std::vector<std::string> names;
  if (DIR* dir = opendir(directory.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(dir);
  }
  return names;
}

// The descriptors this process has open (/proc/self/fd's entries).
inline std::size_t open_descriptor_count() { return directory_entries("/proc/self/fd").size(); }

// Runs BODY in a forked child and returns its wait status. BODY's return value is the exit code; the
// child never returns into the test framework. The child dumps no core (a signal such as SIGQUIT
// may end it).
// Whether a wait status is that of a process ended by SIGNAL_NUMBER (the handlers' cleanup done, the
// signal raised again with its default action).
inline ::testing::AssertionResult killed_by(int status, int signal_number) {
  if (WIFSIGNALED(status) && WTERMSIG(status) == signal_number) return ::testing::AssertionSuccess();
  if (WIFEXITED(status))
    return ::testing::AssertionFailure() << "exited with " << WEXITSTATUS(status) << ", not killed by "
                                         << strsignal(signal_number);
  return ::testing::AssertionFailure() << "killed by " << strsignal(WTERMSIG(status)) << ", not by "
                                       << strsignal(signal_number);
}

inline int run_in_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const rlimit no_core{0, 0};
    (void)setrlimit(RLIMIT_CORE, &no_core);
    int code = 99;
    try {
      code = body();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "child: %s\n", error.what());
      code = 98;
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Feeds DATA into a pipe from a thread; the read end is the input. The writer stops quietly when the
// reader closes early (EPIPE; SIGPIPE is ignored for the whole test program).
class Feeder {
 public:
  explicit Feeder(std::vector<std::byte> data) : data_(std::move(data)) {
    signal(SIGPIPE, SIG_IGN);
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    input_ = InputFile("stdin-like pipe", fds[0], false, 0);
    writer_ = std::thread([this, fd = fds[1]] {
      std::size_t at = 0;
      while (at < data_.size()) {
        const ssize_t put = write(fd, data_.data() + at, std::min<std::size_t>(data_.size() - at, 100000));
        if (put <= 0) break;
        at += static_cast<std::size_t>(put);
      }
      close(fd);
    });
  }
  ~Feeder() {
    input_ = InputFile();  // closes the read end, so a writer blocked on a full pipe gets EPIPE
    writer_.join();
  }
  Feeder(const Feeder&) = delete;
  Feeder& operator=(const Feeder&) = delete;
  [[nodiscard]] const InputFile& input() const { return input_; }
  [[nodiscard]] InputFile& input() { return input_; }
  [[nodiscard]] const std::vector<std::byte>& data() const { return data_; }

 private:
  std::vector<std::byte> data_;
  InputFile input_;
  std::thread writer_;
};

}  // namespace rmgsort::test
