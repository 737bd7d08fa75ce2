// Where host buffers that the GPUs copy from and to should live on a machine with several NUMA
// nodes: on the node the GPUs hang off, so that the copies cross no socket link (libnuma). On one
// node (such as single-socket GPU hosts) there is nothing to choose and nothing is done.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rmgsort {

struct NumaPlacement {
  enum class Kind {
    none,         // one node, or the GPUs' nodes are unknown: the kernel's default (first touch)
    preferred,    // every selected GPU is on nodes[0]
    interleaved,  // the GPUs span nodes: pages are spread over them
  };
  Kind kind = Kind::none;
  std::vector<int> nodes;

  // "none", "node 1", "interleaved over nodes 0,1": for --stats.
  [[nodiscard]] std::string describe() const;
};

// The NUMA node of the PCI device with bus id PCI_BUS_ID (as CUDA gives it, "0000:3B:00.0"), from
// SYSFS_ROOT/bus/pci/devices/<id>/numa_node; -1 when unknown (no such file, or the kernel says -1).
[[nodiscard]] int pci_device_numa_node(const std::string& pci_bus_id, const std::string& sysfs_root = "/sys");

// The placement for GPUs on GPU_NODES (one per GPU, -1: unknown) of a machine with MACHINE_NODES
// NUMA nodes.
[[nodiscard]] NumaPlacement choose_numa_placement(const std::vector<int>& gpu_nodes, int machine_nodes);

// The NUMA nodes this machine has (1 where libnuma finds no NUMA support).
[[nodiscard]] int machine_numa_nodes();

// Applies PLACEMENT to [data, data + bytes), which must not be touched yet: its pages are taken
// from the placement's nodes when they are first touched. Throws rmgsort::Error when the kernel
// refuses the policy.
void apply_numa_placement(const NumaPlacement& placement, void* data, std::size_t bytes);

}  // namespace rmgsort
