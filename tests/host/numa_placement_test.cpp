#include "host/numa_placement.hpp"

#include <gtest/gtest.h>
#include <numa.h>
#include <numaif.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/host_buffer.hpp"

namespace rmgsort {
namespace {

using Kind = NumaPlacement::Kind;

// A sysfs tree holding one numa_node file per PCI device.
class FakeSysfs {
 public:
  FakeSysfs() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rmgsort-sysfs-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
  }
  ~FakeSysfs() { std::filesystem::remove_all(root_); }
  void device(const std::string& id, const std::string& numa_node) {
    const std::filesystem::path dir = std::filesystem::path(root_) / "bus/pci/devices" / id;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "numa_node") << numa_node << "\n";
  }
  [[nodiscard]] const std::string& root() const { return root_; }

 private:
  std::string root_;
};

TEST(NumaPlacement, ReadsTheNodeOfAPciDeviceFromSysfs) {
  FakeSysfs sysfs;
  sysfs.device("0000:3b:00.0", "1");
  sysfs.device("0000:86:00.0", "-1");  // what the kernel says without NUMA information
  EXPECT_EQ(pci_device_numa_node("0000:3B:00.0", sysfs.root()), 1);  // CUDA writes hex digits in upper case
  EXPECT_EQ(pci_device_numa_node("0000:3b:00.0", sysfs.root()), 1);
  EXPECT_EQ(pci_device_numa_node("0000:86:00.0", sysfs.root()), -1);
  EXPECT_EQ(pci_device_numa_node("0000:99:00.0", sysfs.root()), -1);  // no such device
}

TEST(NumaPlacement, OneNodeOrUnknownNodesPlaceNothing) {
  EXPECT_EQ(choose_numa_placement({0, 0, 0, 0}, 1).kind, Kind::none);
  EXPECT_EQ(choose_numa_placement({}, 2).kind, Kind::none);
  EXPECT_EQ(choose_numa_placement({1, -1}, 2).kind, Kind::none);
  EXPECT_EQ(choose_numa_placement({2}, 2).kind, Kind::none);  // a node the machine does not have
  EXPECT_EQ(choose_numa_placement({0}, 1).describe(), "none");
}

TEST(NumaPlacement, GpusOnOneNodePreferItAndSpreadGpusInterleave) {
  const NumaPlacement one = choose_numa_placement({1, 1, 1}, 2);
  EXPECT_EQ(one.kind, Kind::preferred);
  EXPECT_EQ(one.nodes, std::vector<int>{1});
  EXPECT_EQ(one.describe(), "node 1");
  const NumaPlacement spread = choose_numa_placement({3, 1, 3, 1, 0}, 4);
  EXPECT_EQ(spread.kind, Kind::interleaved);
  EXPECT_EQ(spread.nodes, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(spread.describe(), "interleaved over nodes 0,1,3");
}

// On this machine, whatever its nodes: memory preferring node 0 is on node 0 once touched.
TEST(NumaPlacement, PreferredMemoryLandsOnItsNode) {
  if (numa_available() < 0) GTEST_SKIP() << "no NUMA support in this kernel";
  EXPECT_GE(machine_numa_nodes(), 1);
  const std::size_t bytes = std::size_t{8} << 20;
  HostBuffer buffer(bytes);
  apply_numa_placement({Kind::preferred, {0}}, buffer.data(), bytes);
  populate_pages(buffer.data(), bytes, 2);
  for (std::size_t offset = 0; offset < bytes; offset += std::size_t{1} << 20) {
    int node = -1;
    ASSERT_EQ(get_mempolicy(&node, nullptr, 0, buffer.data() + offset, MPOL_F_NODE | MPOL_F_ADDR), 0);
    EXPECT_EQ(node, 0) << "offset " << offset;
  }
  int mode = -1;
  ASSERT_EQ(get_mempolicy(&mode, nullptr, 0, buffer.data(), MPOL_F_ADDR), 0);
  EXPECT_EQ(mode, MPOL_PREFERRED);
  HostBuffer interleaved(bytes);
  apply_numa_placement({Kind::interleaved, {0}}, interleaved.data(), bytes);
  ASSERT_EQ(get_mempolicy(&mode, nullptr, 0, interleaved.data(), MPOL_F_ADDR), 0);
  EXPECT_EQ(mode, MPOL_INTERLEAVE);
  HostBuffer untouched(bytes);
  apply_numa_placement({}, untouched.data(), bytes);  // none: the default policy stays
  ASSERT_EQ(get_mempolicy(&mode, nullptr, 0, untouched.data(), MPOL_F_ADDR), 0);
  EXPECT_EQ(mode, MPOL_DEFAULT);
}

}  // namespace
}  // namespace rmgsort
