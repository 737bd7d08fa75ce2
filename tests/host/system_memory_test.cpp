// The --host-memory default within the limits a user or a batch system sets: control groups (v1 and
// v2, nested, as a container sees them) and `ulimit -v` / `ulimit -d`.
#include "host/system_memory.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace rmgsort {
namespace {

namespace fs = std::filesystem;

// A fake /sys/fs/cgroup: limit files written where a test puts them.
class CgroupTree {
 public:
  CgroupTree() {
    std::string pattern = fs::temp_directory_path() / "rmgsort-cgroup-test-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    root_ = pattern;
  }
  ~CgroupTree() { fs::remove_all(root_); }
  CgroupTree(const CgroupTree&) = delete;
  CgroupTree& operator=(const CgroupTree&) = delete;

  void write(const std::string& relative, const std::string& text) const {
    const fs::path file = fs::path(root_) / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text << "\n";
  }
  [[nodiscard]] const std::string& root() const { return root_; }

 private:
  std::string root_;
};

TEST(CgroupMemoryLimit, VersionTwoTakesTheTightestGroupOnTheWayUp) {
  CgroupTree tree;
  tree.write("cgroup.controllers", "cpu memory pids");
  tree.write("system.slice/memory.max", "max");
  tree.write("system.slice/job_42/memory.max", "8589934592");
  tree.write("system.slice/job_42/step_0/memory.max", "max");
  tree.write("system.slice/job_42/step_0/task/memory.max", "12884901888");
  EXPECT_EQ(cgroup_memory_limit("0::/system.slice/job_42/step_0/task\n", tree.root()), 8589934592u);
  tree.write("system.slice/job_42/step_0/memory.max", "4294967296");
  EXPECT_EQ(cgroup_memory_limit("0::/system.slice/job_42/step_0/task\n", tree.root()), 4294967296u);
  EXPECT_EQ(cgroup_memory_limit("0::/system.slice\n", tree.root()), std::nullopt);
  EXPECT_EQ(cgroup_memory_limit("0::/\n", tree.root()), std::nullopt);
}

// A container with its own cgroup namespace sees its group as "/", the limit in the mount's root;
// without one, its path names groups the mount does not show, and the root's limit still counts.
TEST(CgroupMemoryLimit, AContainersOwnGroupIsTheRoot) {
  CgroupTree tree;
  tree.write("cgroup.controllers", "memory");
  tree.write("memory.max", "2147483648");
  EXPECT_EQ(cgroup_memory_limit("0::/\n", tree.root()), 2147483648u);
  EXPECT_EQ(cgroup_memory_limit("0::/docker/0123abcd\n", tree.root()), 2147483648u);
}

// cgroup v1: the memory controller's hierarchy (alone or with others on one line), beside v2's
// unified/ mount that has no memory controller; v1's "no limit" is a huge number.
TEST(CgroupMemoryLimit, VersionOneMemoryController) {
  CgroupTree tree;
  tree.write("memory/memory.limit_in_bytes", "9223372036854771712");
  tree.write("memory/batch/memory.limit_in_bytes", "6442450944");
  tree.write("memory/batch/job/memory.limit_in_bytes", "9223372036854771712");
  tree.write("unified/cgroup.procs", "1");
  const std::string hybrid = "9:name=systemd:/\n4:memory:/batch/job\n3:cpuset:/\n0::/\n";
  EXPECT_EQ(cgroup_memory_limit(hybrid, tree.root()), 6442450944u);
  EXPECT_EQ(cgroup_memory_limit("5:cpu,memory,cpuacct:/batch/job\n", tree.root()), 6442450944u);
  EXPECT_EQ(cgroup_memory_limit("5:cpu,cpuacct:/batch/job\n", tree.root()), std::nullopt);
  EXPECT_EQ(cgroup_memory_limit("4:memory:/\n", tree.root()), 9223372036854771712u);
}

TEST(CgroupMemoryLimit, NothingReadableIsNoLimit) {
  CgroupTree tree;
  tree.write("cgroup.controllers", "memory");
  tree.write("a/memory.max", "lots");
  tree.write("a/b/memory.max", "");
  tree.write("a/b/c/memory.max", "-1");
  tree.write("a/b/c/d/memory.max", "99999999999999999999999");
  EXPECT_EQ(cgroup_memory_limit("0::/a/b/c/d\n", tree.root()), std::nullopt);
  EXPECT_EQ(cgroup_memory_limit("", tree.root()), std::nullopt);
  EXPECT_EQ(cgroup_memory_limit("garbage without colons\n::\n", tree.root()), std::nullopt);
  EXPECT_EQ(cgroup_memory_limit("0::/a\n", tree.root() + "/missing"), std::nullopt);
}

// What /proc/self/status says the process maps now: VmSize for RLIMIT_AS, VmData for RLIMIT_DATA.
std::uint64_t mapped_bytes(int resource) {
  std::ifstream status("/proc/self/status");
  const std::string field = resource == RLIMIT_AS ? "VmSize:" : "VmData:";
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with(field)) return std::stoull(line.substr(field.size())) * 1024;
  return 0;
}

// Runs BODY in a forked child (limits set there stay there); its return value is the exit code.
int in_child(int (*body)()) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

// `ulimit -v`: what is mapped now and the workers' stacks come off the limit, and the default takes
// three quarters of the rest (a sort within it then spills instead of failing to allocate).
TEST(AddressSpaceRoom, UlimitVBoundsTheDefault) {
  rlimit as{}, data{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &as), 0);
  ASSERT_EQ(getrlimit(RLIMIT_DATA, &data), 0);
  if (as.rlim_cur != RLIM_INFINITY || data.rlim_cur != RLIM_INFINITY) GTEST_SKIP() << "started under a limit";
  EXPECT_EQ(address_space_room(), std::nullopt);
  EXPECT_EQ(default_host_memory_bytes(), physical_memory_bytes() / 4 * 3);
  const std::string bound = default_host_memory().bound;
  EXPECT_TRUE(bound == "physical memory" || bound == "the control group's memory limit") << bound;
  EXPECT_EQ(host_memory_name(std::uint64_t{1} << 30), "--host-memory");
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    SCOPED_TRACE(resource == RLIMIT_AS ? "RLIMIT_AS" : "RLIMIT_DATA");
    static int chosen;
    chosen = resource;
    EXPECT_EQ(in_child([]() -> int {
                if (address_space_room()) return 1;
                // 4 GiB beyond what is mapped now, the workers' stacks (8 MiB each, as RLIMIT_STACK says)
                // and the reserve.
                const rlimit stack{8 << 20, RLIM_INFINITY};
                if (setrlimit(RLIMIT_STACK, &stack) != 0) return 2;
                const std::uint64_t stacks = std::uint64_t(std::max(1u, std::thread::hardware_concurrency())) << 23;
                const std::uint64_t limit = mapped_bytes(chosen) + stacks + kAddressSpaceReserve + (4ull << 30);
                const rlimit bound{limit, limit};
                if (setrlimit(chosen, &bound) != 0) return 3;
                const std::optional<std::uint64_t> room = address_space_room();
                // (What the process maps between the two readings, a few pages, comes off the room.)
                if (!room || *room > (4ull << 30) || *room < (4ull << 30) - (64 << 20)) return 4;
                const HostMemoryDefault measured = measure_default_host_memory();
                if (measured.bound != "what `ulimit -v` and `ulimit -d` leave") return 6;
                if (host_memory_name(std::nullopt, measured) !=
                    "--host-memory's default (75 % of what `ulimit -v` and `ulimit -d` leave)")
                  return 7;
                const std::uint64_t default_bytes = measured.bytes;
                const std::uint64_t expected = std::min<std::uint64_t>(*room / 4 * 3, physical_memory_bytes() / 4 * 3);
                return default_bytes <= expected && default_bytes + (64 << 20) >= expected ? 0 : 5;
              }),
              0);
  }
}

// A limit below what is mapped already leaves no room, not a wrapped-around huge one.
TEST(AddressSpaceRoom, ALimitBelowWhatIsMappedLeavesNone) {
  EXPECT_EQ(in_child([]() -> int {
              const rlimit spent{mapped_bytes(RLIMIT_DATA), RLIM_INFINITY};
              if (setrlimit(RLIMIT_DATA, &spent) != 0) return 1;
              const std::optional<std::uint64_t> room = address_space_room();
              return room && *room == 0 && measure_default_host_memory().bytes == 0 ? 0 : 2;
            }),
            0);
}

// The run keeps its first default: a limit met later (or the run's own buffers, under one) does not
// move the bytes a plan was made with, nor the words a message names them by.
TEST(DefaultHostMemory, TheFirstMeasurementHoldsForTheRun) {
  EXPECT_EQ(in_child([]() -> int {
              const HostMemoryDefault first = default_host_memory();
              const rlimit spent{mapped_bytes(RLIMIT_DATA), RLIM_INFINITY};
              if (setrlimit(RLIMIT_DATA, &spent) != 0) return 1;
              if (measure_default_host_memory().bytes != 0) return 2;
              if (default_host_memory().bytes != first.bytes || default_host_memory_bytes() != first.bytes) return 3;
              return host_memory_name(std::nullopt) == "--host-memory's default (75 % of " + first.bound + ")" ? 0 : 4;
            }),
            0);
}

}  // namespace
}  // namespace rmgsort
