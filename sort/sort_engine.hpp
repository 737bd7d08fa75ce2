// What sorts the records: the CPU (sort/cpu_engine.hpp) or the GPUs (sort/gpu_engine.hpp), behind one
// interface, so that the plan (sort/sort_plan.hpp) and the drivers never ask which one it is. An
// engine sorts at most round_keys() records at once, from host memory it is given; beside them it
// needs host_bytes_beside() (the CPU's radix sort buffer, the record tags), which the plan counts in
// the budget.
//
// Bare number keys are sorted in place, and so are the records the GPUs carry whole
// (core/record_pair.hpp). Every other layout, and anything whose input positions are wanted
// (--index-output), is sorted through record tags (host/record_tags.hpp) and gathered into one of
// the engine's two output buffers, used in turn: a sorted round stays untouched until the
// next round has been sorted too, so the writer can write one while the next sorts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "report/stats.hpp"
#include "core/key_order.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

class Progress;

// Where a sort() left its records, and their input positions when the engine reports them.
struct SortedRound {
  std::span<const std::byte> records;        // count records of the user's layout
  std::span<const std::uint64_t> positions;  // count positions, or empty (PositionSource::none)
};

// Told that records [0, k) of the sort() under way are sorted, in their final place and form: they
// may be written while the sort goes on, which does not touch them again (sort/sorted_prefix_writer.hpp).
// Calls come from any thread, one at a time, k growing, the last with k = count.
using SortedPrefixSink = std::function<void(std::uint64_t records)>;

// Where the positions of --index-output come from: none; the records' places in the sort's input
// (a sort of the whole input); or a u64 appended to every record by the spill pass that read it
// (the engine's layout is then the user's with_position(), and the gather strips it).
enum class PositionSource { none, sort_input, appended };

class SortEngine {
 public:
  virtual ~SortEngine() = default;

  // "cpu" or "gpu": the engine as --stats names it.
  [[nodiscard]] virtual std::string_view name() const = 0;
  // What the progress line says the keys are sorted on ("2 GPUs"); "" on the CPU.
  [[nodiscard]] virtual std::string devices() const = 0;
  // The records it sorts (with PositionSource::appended: the user's, with the position appended).
  [[nodiscard]] virtual const RecordLayout& layout() const = 0;
  // The most records one sort() takes (the CPU: any number).
  [[nodiscard]] virtual std::uint64_t round_keys() const = 0;
  // Host memory a sort of `keys` records needs besides the records themselves and the output
  // buffers, in bytes; linear in `keys`.
  [[nodiscard]] virtual std::uint64_t host_bytes_beside(std::uint64_t keys) const = 0;
  // Host memory of one output buffer for `keys` records (0 when the engine sorts in place).
  [[nodiscard]] virtual std::uint64_t output_bytes(std::uint64_t keys) const = 0;

  // Places host memory that is not touched yet where the engine reads it best (the GPUs' NUMA
  // node(s)); nothing on the CPU.
  virtual void place(std::byte* data, std::size_t bytes) const = 0;
  // Page-locks the memory the next sorts take their keys from (replacing what was pinned before);
  // memory not pinned sorts too. Nothing on the CPU.
  virtual void pin(std::byte* data, std::size_t bytes) = 0;
  // Page-locks [data, data + bytes) as pin() does, but on another thread while `work` runs on this
  // one, and returns when both are done; what `work` throws is thrown. For memory that `work` fills
  // (the read, the rounds' partition; `beside` names it for stats()): `work` must make no CUDA call,
  // which would wait for the registration. The memory is populated first. A registration that
  // fails leaves the memory pageable (each sort then page-locks its own records) and is told in
  // stats(). The CPU: work() alone.
  virtual void pin_while(std::byte* /*data*/, std::size_t /*bytes*/, const std::function<void()>& work,
                         std::string_view /*beside*/) {
    work();
  }
  // Releases what pin() or pin_while() locked, on another thread while `work` (when given) runs on
  // this one, and returns when both are done: the memory may then be freed.
  virtual void unpin_while(const std::function<void()>& work) {
    if (work) work();
  }
  // Allocates the host memory sorts of up to `keys` records (at most round_keys()) need: the CPU's
  // sort buffer, the tags (host_bytes_beside(keys)). Called once, before the first sort(). The
  // devices' buffers were allocated when the engine was chosen (sort/gpu_engine.hpp); the output
  // buffers are allocated by the first two sorts that need them.
  virtual void allocate(std::uint64_t keys) = 0;
  // Sorts records[0, count) in `order`, count <= the keys given to allocate(); stable. `records`
  // may be reordered (it is the sort's work space).
  virtual SortedRound sort(std::byte* records, std::uint64_t count, SortOrder order) = 0;
  // How many sorts may run at once, each sort_on() a sorter of its own called from a thread of its
  // own: the GPUs' engine for rounds of bare keys has two, so that one round's copy back overlaps
  // the next one's copy in (sort/rounds_sort.hpp). 1, the default: sort() is sorter 0.
  [[nodiscard]] virtual unsigned concurrent_sorts() const { return 1; }
  // sort() on sorter `sorter` < concurrent_sorts(); calls on different sorters may overlap.
  virtual SortedRound sort_on(unsigned sorter, std::byte* records, std::uint64_t count, SortOrder order) {
    RMGSORT_EXPECTS(sorter == 0, "sort_on: a sorter the engine has");
    return sort(records, count, order);
  }
  // From now on, adds the bytes each sort() has placed to `progress` as it goes, and returns true;
  // false (the default) for an engine that tells nothing before its sort returns.
  virtual bool report_to(Progress& /*progress*/) { return false; }
  // From now on, tells `sink` the sorted prefix of each sort() in place (records == the sorted
  // round's records) as it grows, and returns true; false (the default) for an engine that does not
  // tell it, whose sorted records are final only when sort() returns. An empty sink stops the telling.
  virtual bool hand_prefixes_to(SortedPrefixSink /*sink*/) { return false; }
  // Whether hand_prefixes_to() would return true.
  [[nodiscard]] virtual bool hands_prefixes() const { return false; }

  // The device memory the engine holds on each GPU, in the order of the selected GPUs ([] on the
  // CPU). Everything is allocated once, so this is also each GPU's peak.
  [[nodiscard]] virtual std::vector<std::uint64_t> device_bytes_allocated() const = 0;
  // The engine's own statistics for --stats ("gpu": per-GPU phase times, links, passes; on the CPU,
  // how records were sorted), in seconds; null when it has none (the CPU's bare keys).
  [[nodiscard]] virtual Json stats() const = 0;
};

}  // namespace rmgsort
