// What sorts the keys: the CPU (sort/cpu_engine.hpp) or the GPUs (sort/gpu_engine.hpp), behind one
// interface, so that the plan (sort/sort_plan.hpp) and the drivers never ask which one it is. An
// engine sorts at most round_keys() keys at once, in place, in host memory it is given; beside them
// it needs host_bytes_beside() (the CPU's radix sort buffer), which the plan counts in the budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/stats.hpp"
#include "core/key_order.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

class SortEngine {
 public:
  virtual ~SortEngine() = default;

  // "cpu" or "gpu": the engine as --stats names it.
  [[nodiscard]] virtual std::string_view name() const = 0;
  // What the progress line says the keys are sorted on ("2 GPUs"); "" on the CPU.
  [[nodiscard]] virtual std::string devices() const = 0;
  // The records it sorts.
  [[nodiscard]] virtual const RecordLayout& layout() const = 0;
  // The most keys one sort() takes (the CPU: any number).
  [[nodiscard]] virtual std::uint64_t round_keys() const = 0;
  // Host memory a sort of `keys` keys needs besides the keys themselves, in bytes; linear in `keys`.
  [[nodiscard]] virtual std::uint64_t host_bytes_beside(std::uint64_t keys) const = 0;

  // Places host memory that is not touched yet where the engine reads it best (the GPUs' NUMA
  // node(s)); nothing on the CPU.
  virtual void place(std::byte* data, std::size_t bytes) const = 0;
  // Page-locks the memory the next sorts take their keys from (replacing what was pinned before);
  // memory not pinned sorts too. Nothing on the CPU.
  virtual void pin(std::byte* data, std::size_t bytes) = 0;
  // Allocates what sorts of up to `keys` keys (at most round_keys()) need: the devices' buffers, or
  // the CPU's sort buffer (host_bytes_beside(keys)). Called once, before the first sort().
  virtual void allocate(std::uint64_t keys) = 0;
  // Sorts keys[0, count) in place, count <= the keys given to allocate().
  virtual void sort(std::byte* keys, std::uint64_t count, SortOrder order) = 0;

  // The device memory allocate() took on each GPU, in the order of the selected GPUs (zeros before
  // it was called; [] on the CPU). Everything is allocated once, so this is also each GPU's peak.
  [[nodiscard]] virtual std::vector<std::uint64_t> device_bytes_allocated() const = 0;
  // The engine's own statistics for --stats ("gpu": per-GPU phase times, links, passes); {} on the CPU.
  [[nodiscard]] virtual JsonObject stats() const = 0;
};

}  // namespace rmgsort
