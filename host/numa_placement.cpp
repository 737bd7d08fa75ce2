#include "host/numa_placement.hpp"

#include <numa.h>
#include <numaif.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>

#include "core/error.hpp"

namespace rmgsort {

std::string NumaPlacement::describe() const {
  switch (kind) {
    case Kind::none:
      return "none";
    case Kind::preferred:
      return "node " + std::to_string(nodes.at(0));
    case Kind::interleaved: {
      std::string text = "interleaved over nodes ";
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (i > 0) text += ',';
        text += std::to_string(nodes[i]);
      }
      return text;
    }
  }
  return "none";
}

int pci_device_numa_node(const std::string& pci_bus_id, const std::string& sysfs_root) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  std::ifstream file(sysfs_root + "/bus/pci/devices/" + id + "/numa_node");
  int node = -1;
  if (!(file >> node) || node < 0) return -1;
  return node;
}

NumaPlacement choose_numa_placement(const std::vector<int>& gpu_nodes, int machine_nodes) {
  NumaPlacement placement;
  if (machine_nodes < 2 || gpu_nodes.empty()) return placement;
  if (std::any_of(gpu_nodes.begin(), gpu_nodes.end(), [&](int node) { return node < 0 || node >= machine_nodes; })) {
    return placement;  // a GPU's node is unknown: any choice could be the wrong one
  }
  std::vector<int> nodes = gpu_nodes;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  placement.kind = nodes.size() == 1 ? NumaPlacement::Kind::preferred : NumaPlacement::Kind::interleaved;
  placement.nodes = std::move(nodes);
  return placement;
}

int machine_numa_nodes() {
  if (numa_available() < 0) return 1;
  return std::max(1, numa_num_configured_nodes());
}

void apply_numa_placement(const NumaPlacement& placement, void* data, std::size_t bytes) {
  if (placement.kind == NumaPlacement::Kind::none || bytes == 0) return;
  // mbind rather than numa_tonode_memory: libnuma's helpers print to stderr and carry on on failure.
  unsigned long mask = 0;
  for (int node : placement.nodes) {
    if (node >= int(8 * sizeof mask) - 1) return;  // beyond one word of nodes: leave it to the kernel
    mask |= 1ul << node;
  }
  // MPOL_PREFERRED falls back to other nodes when the preferred one is full, rather than failing.
  const int mode = placement.kind == NumaPlacement::Kind::preferred ? MPOL_PREFERRED : MPOL_INTERLEAVE;
  // The kernel reads maxnode - 1 bits of the mask.
  if (mbind(data, bytes, mode, &mask, 8 * sizeof mask, 0) != 0) {
    throw_errno("host memory", "cannot place it on NUMA " + placement.describe());
  }
}

}  // namespace rmgsort
