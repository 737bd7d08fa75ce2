#include "sort/gpu_engine.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <span>
#include <thread>

#include "host/numa_placement.hpp"
#include "io/host_buffer.hpp"
#include "report/size_parse.hpp"
#include "report/stopwatch.hpp"
#include "sort/record_tag_sorter.hpp"

#if RMGSORT_WITH_CUDA
#include "gpu/cuda_check.hpp"
#include "gpu/devices.hpp"
#include "gpu/gpu_policy.hpp"
#include "gpu/in_core_allocation.hpp"
#include "gpu/in_core_sort.hpp"
#include "core/record_pair.hpp"
#if RMGSORT_FAULT_INJECTION
#include "gpu/fault_injection.hpp"
#endif
#endif

namespace rmgsort {

#if RMGSORT_WITH_CUDA
namespace {

// How the devices' memory was had: for --stats.
struct DeviceAllocation {
  double seconds = 0;                // allocating, re-planning included
  std::uint64_t first_round_keys = 0;  // the round first planned
  std::string replanned_because;     // why the round was planned again; "" when it was not
  std::string one_sorter_because;    // overlapped rounds asked for, but one sorter: why ("" otherwise)
};

class InCoreEngine final : public SortEngine {
 public:
  // Bare keys (without positions) are sorted as keys of their type; records the GPUs carry whole,
  // and bare keys with the positions of the sort's input, as pairs (core/record_pair.hpp); every
  // other layout by tags, which the GPUs sort as u64 keys. Each sorter holds the devices' memory of
  // the same plan for what the GPUs sort (a plan with values for pairs); more than one only for
  // bare keys, sorted in overlapping rounds.
  InCoreEngine(const RecordLayout& layout, PositionSource positions,
               std::vector<std::unique_ptr<InCoreSorter>> sorters, DeviceAllocation allocation)
      : layout_(layout),
        positions_wanted_(positions == PositionSource::sort_input),
        plan_(sorters.front()->plan()),
        sorters_(std::move(sorters)),
        allocation_(std::move(allocation)) {
    const bool by_keys = layout.is_bare_key() && positions == PositionSource::none;
    if (!by_keys && !pairs()) tag_sorter_.emplace(layout, positions);
    RMGSORT_EXPECTS(by_keys || sorters_.size() == 1, "concurrent sorters for bare keys only");
    std::vector<int> nodes;
    for (int gpu : plan_.gpus) nodes.push_back(pci_device_numa_node(gpu_info(gpu).pci_bus_id));
    numa_ = choose_numa_placement(nodes, machine_numa_nodes());
  }

  std::string_view name() const override { return "gpu"; }
  std::string devices() const override {
    return std::to_string(plan_.gpus.size()) + " GPU" + (plan_.gpus.size() == 1 ? "" : "s");
  }
  const RecordLayout& layout() const override { return layout_; }
  std::uint64_t round_keys() const override { return plan_.round_keys; }
  unsigned concurrent_sorts() const override { return unsigned(sorters_.size()); }
  // Bare keys and pairs are sorted where they lie: nothing beside them on the host but the
  // positions, when the pairs carry them. Records: their tags.
  std::uint64_t host_bytes_beside(std::uint64_t keys) const override {
    if (pairs() && positions_wanted_) return keys * sizeof(std::uint64_t);
    return tag_sorter_ ? tag_sorter_->host_bytes(keys) : 0;
  }
  std::uint64_t output_bytes(std::uint64_t keys) const override {
    return tag_sorter_ ? tag_sorter_->output_bytes(keys) : 0;
  }
  // Records sorted by tags are not copied to the GPUs (their tags are): they are not page-locked.
  void pin(std::byte* data, std::size_t bytes) override {
    if (tag_sorter_) return;
    unpin();  // first: a new range may share pages with the old one
    populate_pages(data, bytes, unsigned(tbb::this_task_arena::max_concurrency()));
    // The first GPU's, as pin_while's: unpin_while() may release it from a thread of its own.
    pinned_ = PinnedRegistration(data, bytes, plan_.gpus.front());
    pinned_range_ = {data, bytes};
  }
  // The registration runs on its own thread, from the first GPU's context: the read or the rounds'
  // partition (`work`) makes no CUDA call, so nothing waits for it. Registering 32 GB of populated
  // memory takes 1-2.5 s (12-35 GB/s by host, bench_results/2026-11-22-host-memory-h200x4.md and
  // 2026-11-24-cpu-file-and-page-locking-h100host.md): beside the work instead of before it, and,
  // for rounds, once instead of once per round.
  void pin_while(std::byte* data, std::size_t bytes, const std::function<void()>& work,
                 std::string_view beside) override {
    if (tag_sorter_) return work();
    unpin();
    populate_pages(data, bytes, unsigned(tbb::this_task_arena::max_concurrency()));
    locked_ = PageLocking();
    locked_.bytes = bytes;
    locked_.beside = beside;
    Stopwatch waited;
    {
      std::jthread registering([this, data, bytes] {
        Stopwatch took;
        try {
#if RMGSORT_FAULT_INJECTION
          fault_injection::enter_stage(plan_.gpus.front(), "page-locking");
#endif
          pinned_ = PinnedRegistration(data, bytes, plan_.gpus.front());
          pinned_range_ = {data, bytes};
        } catch (const Error& e) {
          locked_.failure = e.what();  // the sorts page-lock each round themselves
        }
        locked_.seconds = took.lap();
      });
      work();  // what it throws leaves after the registration ended (jthread joins)
      waited = Stopwatch();
    }
    locked_.waited_seconds = waited.lap();
  }
  void unpin_while(const std::function<void()>& work) override {
    if (!work) return unpin();
    std::jthread releasing([this] {
      Stopwatch took;
      unpin();
      locked_.release_seconds = took.lap();
    });
    work();
  }
  void place(std::byte* data, std::size_t bytes) const override { apply_numa_placement(numa_, data, bytes); }
  // The devices' buffers were allocated for round_keys() when the engine was chosen. The tags are
  // page-locked once, placed like the keys.
  void allocate(std::uint64_t keys) override {
    if (pairs() && positions_wanted_) {
      positions_ = HostBuffer(keys * sizeof(std::uint64_t));
      apply_numa_placement(numa_, positions_.data(), positions_.capacity());
      populate_pages(positions_.data(), positions_.capacity(), unsigned(tbb::this_task_arena::max_concurrency()));
      pinned_positions_ = PinnedRegistration(positions_.data(), positions_.capacity());
    }
    if (!tag_sorter_) return;
    tag_sorter_->allocate(keys);
    HostBuffer& tags = tag_sorter_->tags();
    apply_numa_placement(numa_, tags.data(), tags.capacity());
    populate_pages(tags.data(), tags.capacity(), unsigned(tbb::this_task_arena::max_concurrency()));
    pinned_tags_ = PinnedRegistration(tags.data(), tags.capacity());
  }
  // A sort that fails part way waits for the GPUs before its error leaves: no copy may still write
  // host memory that the caller frees as the error unwinds.
  SortedRound sort(std::byte* records, std::uint64_t count, SortOrder order) override {
    return sort_on(0, records, count, order);
  }
  // Sorters other than the first are bare keys' (their sort takes no host buffer of the engine).
  SortedRound sort_on(unsigned sorter, std::byte* records, std::uint64_t count, SortOrder order) override {
    RMGSORT_EXPECTS(sorter < sorters_.size(), "sort_on: a sorter the engine has");
    // Records outside the page-locked memory are page-locked by their sort for its time, and two
    // rounds may share a page, which cannot be registered twice: such sorts run one at a time.
    std::unique_lock<std::mutex> one_at_a_time(unpinned_sorts_, std::defer_lock);
    if (sorters_.size() > 1 && !pinned(records, count * layout_.record_size)) one_at_a_time.lock();
    // The calling thread may be new (a rounds sorter's): its first CUDA call would otherwise start
    // GPU 0's context, on a GPU the run may not use.
    RMGSORT_CUDA_TRY(cudaSetDevice(plan_.gpus.front()));
    try {
      return sort_on_gpus(*sorters_[sorter], records, count, order);
    } catch (...) {
      wait_for_gpus(plan_.gpus);
      throw;
    }
  }

  std::vector<std::uint64_t> device_bytes_allocated() const override {
    // Each sorter allocated exactly the plan's need on each GPU (gpu/memory_plan.cuh: both use
    // gpu_layout, so they agree to the byte) when the engine was chosen.
    std::vector<std::uint64_t> bytes;
    for (const GpuMemoryNeed& need : plan_.need) bytes.push_back(need.total() * sorters_.size());
    return bytes;
  }

  Json stats() const override;

 private:
  [[nodiscard]] bool pairs() const { return plan_.value_bytes > 0; }
  void unpin() {
    pinned_ = PinnedRegistration();
    pinned_range_ = {};
  }
  [[nodiscard]] bool pinned(const std::byte* data, std::size_t bytes) const {
    return data >= pinned_range_.data() && data + bytes <= pinned_range_.data() + pinned_range_.size();
  }
  SortedRound sort_on_gpus(InCoreSorter& sorter, std::byte* records, std::uint64_t count, SortOrder order) {
    if (tag_sorter_) {
      return tag_sorter_->sort(records, count, order, [&](std::uint64_t* tags, std::uint64_t n, int) {
        took(sorter.sort(reinterpret_cast<std::byte*>(tags), n, SortOrder::ascending));
      });
    }
    if (pairs()) {
      auto* positions = positions_wanted_ ? positions_.as<std::uint64_t>() : nullptr;
      took(sorter.sort_records(records, count, layout_, order, positions));
      if (positions_wanted_) return SortedRound{{records, count * layout_.record_size}, {positions, count}};
    } else {
      took(sorter.sort(records, count, order));
    }
    return SortedRound{{records, count * layout_.record_size}, {}};
  }

  // A sort's statistics, from whichever sorter's thread made it.
  void took(InCoreStats stats) {
    const std::lock_guard lock(stats_mutex_);
    device_ms_.push_back(stats.total_ms);
    last_ = std::move(stats);
  }

  // The memory pin_while() page-locked beside a read or a partition, for --stats.
  struct PageLocking {
    std::uint64_t bytes = 0;      // 0: pin_while() was not called
    std::string beside;           // what ran meanwhile: "read", "partition", "checksum" or "nothing"
    double seconds = 0;           // the registration's own time, beside the work
    double waited_seconds = 0;    // what the work waited for it after its end
    double release_seconds = 0;   // unpin_while()'s release, beside its work
    std::string failure;          // why it failed ("" when it did not)
  };

  RecordLayout layout_;
  bool positions_wanted_ = false;  // PositionSource::sort_input
  HostBuffer positions_;           // pairs with positions: written by each sort, valid until the next
  PinnedRegistration pinned_positions_;
  std::optional<RecordTagSorter> tag_sorter_;
  PinnedRegistration pinned_tags_;
  InCorePlan plan_;
  NumaPlacement numa_;
  PinnedRegistration pinned_;
  std::span<std::byte> pinned_range_;  // what pinned_ holds (empty: nothing)
  std::vector<std::unique_ptr<InCoreSorter>> sorters_;  // the same plan each
  std::mutex unpinned_sorts_;  // held by a sort of records outside pinned_range_, with more than one sorter
  DeviceAllocation allocation_;
  mutable std::mutex stats_mutex_;  // guards last_ and device_ms_: concurrent sorters report
  InCoreStats last_;
  std::vector<double> device_ms_;
  PageLocking locked_;
};

// The sorter times in milliseconds (CUDA events); --stats has seconds everywhere.
Json InCoreEngine::stats() const {
  const std::lock_guard lock(stats_mutex_);
  const auto seconds = [](double ms) { return ms / 1e3; };
  const auto seconds_each = [&](const std::vector<double>& ms) {
    Json each = Json::array();
    for (const double value : ms) each.push_back(seconds(value));
    return each;
  };
  Json gpus = Json::array();
  for (std::size_t i = 0; i < last_.gpus.size(); ++i) {
    const InCoreStats::Gpu& gpu = last_.gpus[i];
    gpus.push_back({
        {"device", gpu.device},
        {"memory_planned_bytes", plan_.need[i].total() * sorters_.size()},
        {"copy_in_seconds", seconds(gpu.copy_in_ms)},
        {"histogram_seconds", seconds_each(gpu.histogram_ms)},
        {"exchange_seconds", seconds_each(gpu.exchange_ms)},
        {"scatter_seconds", seconds_each(gpu.scatter_ms)},
        {"swap_seconds", seconds(gpu.swap_ms)},
        {"sort_and_copy_back_seconds", seconds(gpu.sort_and_copy_back_ms)},
        {"first_copy_back_seconds", seconds(gpu.first_copy_back_ms)},
        {"keys_received", gpu.keys_received},
        {"bucket_sorts", std::uint64_t(gpu.bucket_sorts)},
    });
  }
  Json json = {
      {"records_carried_as_pairs", pairs()},
      {"record_tags", tag_sorter_ ? tag_sorter_->stats() : Json(nullptr)},
      {"passes", last_.passes},
      {"buckets", std::uint64_t(last_.buckets)},
      {"total_seconds", seconds(last_.total_ms)},
      {"round_keys_planned", plan_.round_keys},
      {"concurrent_sorters", std::uint64_t(sorters_.size())},
      {"one_sorter_because", string_or_null(allocation_.one_sorter_because)},
      {"round_keys_first_planned", allocation_.first_round_keys},
      {"replanned_because", string_or_null(allocation_.replanned_because)},
      {"device_allocate_seconds", allocation_.seconds},
      {"host_memory_numa_placement", numa_.describe()},
      {"host_page_locking",
       locked_.bytes == 0 ? Json(nullptr)
                          : Json{{"bytes", locked_.bytes},
                                 {"beside", locked_.beside},
                                 {"seconds", locked_.seconds},
                                 {"waited_seconds", locked_.waited_seconds},
                                 {"release_seconds", locked_.release_seconds},
                                 {"failure", string_or_null(locked_.failure)}}},
      {"device_seconds_per_sort", seconds_each(device_ms_)},
      {"swap_bytes_src_dst", last_.bytes_between},
      {"pairs_staged_through_host", last_.staged_pairs},
      {"gpus", gpus},
      {"policy",
       {
           {"digit_bits", gpu_policy::kDigitBits},
           {"threads_per_block", gpu_policy::kThreadsPerBlock},
           {"epsilon_fraction", gpu_policy::kEpsilonFraction},
           {"small_bucket_fraction", gpu_policy::kSmallBucketFraction},
           {"max_bucket_sorts", std::uint64_t(gpu_policy::kMaxBucketSorts)},
           {"copy_in_pieces", gpu_policy::kCopyInPieces},
           {"min_copy_in_piece_bytes", gpu_policy::kMinCopyInPieceBytes},
       }},
  };
#if RMGSORT_FAULT_INJECTION
  json["fault_injection"] = string_or_null(fault_injection::spec());  // only in a build with the test hook
#endif
  return json;
}

// "GPU 0 has only 50.00 MiB usable (562.00 MiB free) of the 100.00 MiB planned", or, when no GPU
// is short of its plan now, why the allocation failed.
std::string shortage(const InCoreAllocation& allocation) {
  if (!allocation.shortfall) return "the GPUs' buffers could not be allocated (" + allocation.first_failure + ")";
  const GpuShortfall& gpu = *allocation.shortfall;
  return "GPU " + std::to_string(gpu.device) + " has only " + format_bytes(gpu.usable) + " usable (" +
         format_bytes(gpu.free) + " free) of the " + format_bytes(gpu.planned) + " planned";
}

// The plan of each of two sorters that share the GPUs: the largest round whose need, twice, is no
// more than LARGEST's on every GPU (what the budget holds for one sorter); nullopt when that is
// less than a key per GPU.
std::optional<InCorePlan> half_plan(const InCorePlan& largest) {
  const auto fits = [&](std::uint64_t round) {
    const InCorePlan plan = shrink_in_core_plan(largest, round);
    for (std::size_t i = 0; i < plan.need.size(); ++i)
      if (2 * plan.need[i].total() > largest.need[i].total()) return false;
    return true;
  };
  std::uint64_t low = 0, high = largest.round_keys / 2;  // the need grows with the round: bisect
  while (low < high) {
    const std::uint64_t middle = low + (high - low + 1) / 2;
    if (fits(middle)) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  if (low < largest.gpus.size()) return std::nullopt;
  return shrink_in_core_plan(largest, low);
}

// Two sorters of `half` each, or nullptr and why not (their buffers could not be had: one sorter
// of the whole budget is tried next).
std::unique_ptr<SortEngine> two_sorters(const InCorePlan& half, const RecordLayout& layout, PositionSource positions,
                                        std::string& why_not) {
  Stopwatch took;
  try {
    std::vector<std::unique_ptr<InCoreSorter>> sorters;
    for (int s = 0; s < 2; ++s) sorters.push_back(std::make_unique<InCoreSorter>(half));
    return std::make_unique<InCoreEngine>(layout, positions, std::move(sorters),
                                          DeviceAllocation{took.lap(), half.round_keys, "", ""});
  } catch (const Error& e) {
    why_not = std::string("two sorters' buffers could not be allocated (") + e.what() + ")";
    return nullptr;
  }
}

// The GPUs' engine for `keys` records, its devices' memory allocated (planned again once when that
// failed), or nullptr and why not.
std::unique_ptr<SortEngine> choose_in_core(const std::vector<int>& gpus, std::optional<std::uint64_t> gpu_memory,
                                           const Notice& notice, const RecordLayout& layout, PositionSource positions,
                                           std::uint64_t keys, RoundSorting rounds, std::string& why_not) {
#if RMGSORT_FAULT_INJECTION
  (void)fault_injection::spec();  // a malformed RMGSORT_INJECT_FAULT is an Error before anything is planned
#endif
  // Bare keys: the keys themselves. Records carried whole, and bare keys with positions: their
  // pairs. Everything else: the tags, u64 keys.
  const bool pairs =
      positions != PositionSource::appended && sorted_as_pairs(layout, positions == PositionSource::sort_input);
  const bool bare = positions == PositionSource::none && layout.is_bare_key();
  const KeyType sorted_type = bare ? layout.key_type : pairs ? pair_key_type(layout) : KeyType::u64;
  const std::size_t value_bytes = pairs ? kPairValueBytes : 0;
  const InCorePlan largest = plan_in_core(sorted_type, gpus, gpu_memory, value_bytes);
  // Bare keys in rounds, sorted two at a time (sort/rounds_sort.hpp): a round's copy back and the
  // next one's copy in overlap (PCIe is full duplex). Half the memory each, so twice the rounds.
  std::string one_sorter_because;
  if (rounds == RoundSorting::overlapped && bare && keys > largest.round_keys) {
    const std::optional<InCorePlan> half = half_plan(largest);
    if (!half) one_sorter_because = "half of the GPUs' memory does not hold a key per GPU";
    if (half) {
      if (std::unique_ptr<SortEngine> engine = two_sorters(*half, layout, positions, one_sorter_because)) return engine;
    }
  }
  const InCorePlan plan = shrink_in_core_plan(largest, std::min(keys, largest.round_keys));
  InCoreAllocation allocation = allocate_in_core(plan, keys, gpu_memory);
  if (!allocation.sorter) {
    const std::string why = shortage(allocation);
    why_not = why + "; a smaller plan could not be allocated either (" + allocation.replan_failure + ")";
    notice("rmgsort: " + why + "; sorting on the CPU");
    return nullptr;
  }
  DeviceAllocation report{allocation.seconds, allocation.first_round_keys, "", one_sorter_because};
  if (!allocation.first_failure.empty()) {
    report.replanned_because = shortage(allocation);
    const std::uint64_t round = allocation.sorter->plan().round_keys;
    notice("rmgsort: " + report.replanned_because +
           (round < allocation.first_round_keys
                ? "; planned again for rounds of " + std::to_string(round) + " keys instead of " +
                      std::to_string(allocation.first_round_keys)
                : std::string("; allocated at the second try")));
  }
  std::vector<std::unique_ptr<InCoreSorter>> sorters;
  sorters.push_back(std::move(allocation.sorter));
  return std::make_unique<InCoreEngine>(layout, positions, std::move(sorters), std::move(report));
}

void print_notice(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

}  // namespace

GpuEngineChooser gpu_engine_chooser(std::vector<int> gpus, std::optional<std::uint64_t> gpu_memory, Notice notice) {
  if (!notice) notice = print_notice;
  // Why the GPUs were given up: once their memory could not be had, the rest of the run sorts on
  // the CPU without trying (or telling) again.
  auto given_up = std::make_shared<std::string>();
  return [gpus = std::move(gpus), gpu_memory, notice = std::move(notice), given_up](
             const RecordLayout& layout, PositionSource positions, std::uint64_t keys, RoundSorting rounds,
             std::string& why_not) -> std::unique_ptr<SortEngine> {
    if (gpus.empty() || keys == 0) {
      why_not = gpus.empty() ? "no GPU selected" : "no keys";
      return nullptr;
    }
    if (!given_up->empty()) {
      why_not = *given_up;
      return nullptr;
    }
    std::unique_ptr<SortEngine> engine =
        choose_in_core(gpus, gpu_memory, notice, layout, positions, keys, rounds, why_not);
    if (!engine) *given_up = why_not;
    return engine;
  };
}

#else

GpuEngineChooser gpu_engine_chooser(std::vector<int>, std::optional<std::uint64_t>, Notice) {
  return [](const RecordLayout&, PositionSource, std::uint64_t, RoundSorting,
            std::string& why_not) -> std::unique_ptr<SortEngine> {
    why_not = "this rmgsort was built without CUDA";
    return nullptr;
  };
}

#endif

}  // namespace rmgsort
