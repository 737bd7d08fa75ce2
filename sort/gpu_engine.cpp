#include "sort/gpu_engine.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "host/numa_placement.hpp"
#include "io/host_buffer.hpp"
#include "report/size_parse.hpp"
#include "report/stopwatch.hpp"
#include "sort/record_tag_sorter.hpp"

#if RMGSORT_WITH_CUDA
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
};

class InCoreEngine final : public SortEngine {
 public:
  // Bare keys (without positions) are sorted as keys of their type; records the GPUs carry whole,
  // and bare keys with the positions of the sort's input, as pairs (core/record_pair.hpp); every
  // other layout by tags, which the GPUs sort as u64 keys. `sorter` holds the devices' memory of a
  // plan for what the GPUs sort (a plan with values for pairs).
  InCoreEngine(const RecordLayout& layout, PositionSource positions, std::unique_ptr<InCoreSorter> sorter,
               DeviceAllocation allocation)
      : layout_(layout),
        positions_wanted_(positions == PositionSource::sort_input),
        plan_(sorter->plan()),
        sorter_(std::move(sorter)),
        allocation_(std::move(allocation)) {
    const bool by_keys = layout.is_bare_key() && positions == PositionSource::none;
    if (!by_keys && !pairs()) tag_sorter_.emplace(layout, positions);
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
    pinned_ = PinnedRegistration();  // first: a new range may share pages with the old one
    populate_pages(data, bytes, unsigned(tbb::this_task_arena::max_concurrency()));
    pinned_ = PinnedRegistration(data, bytes);
  }
  // The registration runs on its own thread, from the first GPU's context: the read or the rounds'
  // partition (`work`) makes no CUDA call, so nothing waits for it. Registering 32 GB of populated
  // memory takes 1-2.5 s (12-35 GB/s by host, bench_results/2026-11-22-host-memory-h200x4.md and
  // 2026-11-24-cpu-file-and-page-locking-h100host.md): beside the work instead of before it, and,
  // for rounds, once instead of once per round.
  void pin_while(std::byte* data, std::size_t bytes, const std::function<void()>& work,
                 std::string_view beside) override {
    if (tag_sorter_) return work();
    pinned_ = PinnedRegistration();
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
    if (!work) {
      pinned_ = PinnedRegistration();
      return;
    }
    std::jthread releasing([this] {
      Stopwatch took;
      pinned_ = PinnedRegistration();
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
    try {
      return sort_on_gpus(records, count, order);
    } catch (...) {
      wait_for_gpus(plan_.gpus);
      throw;
    }
  }

  std::vector<std::uint64_t> device_bytes_allocated() const override {
    // The sorter allocated exactly the plan's need on each GPU (gpu/memory_plan.cuh: both use
    // gpu_layout, so they agree to the byte) when the engine was chosen.
    std::vector<std::uint64_t> bytes;
    for (const GpuMemoryNeed& need : plan_.need) bytes.push_back(need.total());
    return bytes;
  }

  Json stats() const override;

 private:
  [[nodiscard]] bool pairs() const { return plan_.value_bytes > 0; }
  SortedRound sort_on_gpus(std::byte* records, std::uint64_t count, SortOrder order) {
    if (tag_sorter_) {
      return tag_sorter_->sort(records, count, order, [&](std::uint64_t* tags, std::uint64_t n, int) {
        sorted_on_gpus(reinterpret_cast<std::byte*>(tags), n, SortOrder::ascending);
      });
    }
    if (pairs()) {
      auto* positions = positions_wanted_ ? positions_.as<std::uint64_t>() : nullptr;
      last_ = sorter_->sort_records(records, count, layout_, order, positions);
      device_ms_.push_back(last_.total_ms);
      if (positions_wanted_) return SortedRound{{records, count * layout_.record_size}, {positions, count}};
    } else {
      sorted_on_gpus(records, count, order);
    }
    return SortedRound{{records, count * layout_.record_size}, {}};
  }

  void sorted_on_gpus(std::byte* keys, std::uint64_t count, SortOrder order) {
    last_ = sorter_->sort(keys, count, order);
    device_ms_.push_back(last_.total_ms);
  }

  // The memory pin_while() page-locked beside a read or a partition, for --stats.
  struct PageLocking {
    std::uint64_t bytes = 0;      // 0: pin_while() was not called
    std::string beside;           // what ran meanwhile: "read" or "partition"
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
  std::unique_ptr<InCoreSorter> sorter_;
  DeviceAllocation allocation_;
  InCoreStats last_;
  std::vector<double> device_ms_;
  PageLocking locked_;
};

// The sorter times in milliseconds (CUDA events); --stats has seconds everywhere.
Json InCoreEngine::stats() const {
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
        {"memory_planned_bytes", plan_.need[i].total()},
        {"copy_in_seconds", seconds(gpu.copy_in_ms)},
        {"histogram_seconds", seconds_each(gpu.histogram_ms)},
        {"exchange_seconds", seconds_each(gpu.exchange_ms)},
        {"scatter_seconds", seconds_each(gpu.scatter_ms)},
        {"swap_seconds", seconds(gpu.swap_ms)},
        {"sort_and_copy_back_seconds", seconds(gpu.sort_and_copy_back_ms)},
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

// The GPUs' engine for `keys` records, its devices' memory allocated (planned again once when that
// failed), or nullptr and why not.
std::unique_ptr<SortEngine> choose_in_core(const std::vector<int>& gpus, std::optional<std::uint64_t> gpu_memory,
                                           const Notice& notice, const RecordLayout& layout, PositionSource positions,
                                           std::uint64_t keys, std::string& why_not) {
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
  const InCorePlan plan = shrink_in_core_plan(largest, std::min(keys, largest.round_keys));
  InCoreAllocation allocation = allocate_in_core(plan, keys, gpu_memory);
  if (!allocation.sorter) {
    const std::string why = shortage(allocation);
    why_not = why + "; a smaller plan could not be allocated either (" + allocation.replan_failure + ")";
    notice("rmgsort: " + why + "; sorting on the CPU");
    return nullptr;
  }
  DeviceAllocation report{allocation.seconds, allocation.first_round_keys, ""};
  if (!allocation.first_failure.empty()) {
    report.replanned_because = shortage(allocation);
    const std::uint64_t round = allocation.sorter->plan().round_keys;
    notice("rmgsort: " + report.replanned_because +
           (round < allocation.first_round_keys
                ? "; planned again for rounds of " + std::to_string(round) + " keys instead of " +
                      std::to_string(allocation.first_round_keys)
                : std::string("; allocated at the second try")));
  }
  return std::make_unique<InCoreEngine>(layout, positions, std::move(allocation.sorter), std::move(report));
}

void print_notice(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

}  // namespace

GpuEngineChooser gpu_engine_chooser(std::vector<int> gpus, std::optional<std::uint64_t> gpu_memory, Notice notice) {
  if (!notice) notice = print_notice;
  // Why the GPUs were given up: once their memory could not be had, the rest of the run sorts on
  // the CPU without trying (or telling) again.
  auto given_up = std::make_shared<std::string>();
  return [gpus = std::move(gpus), gpu_memory, notice = std::move(notice), given_up](
             const RecordLayout& layout, PositionSource positions, std::uint64_t keys,
             std::string& why_not) -> std::unique_ptr<SortEngine> {
    if (gpus.empty() || keys == 0) {
      why_not = gpus.empty() ? "no GPU selected" : "no keys";
      return nullptr;
    }
    if (!given_up->empty()) {
      why_not = *given_up;
      return nullptr;
    }
    std::unique_ptr<SortEngine> engine = choose_in_core(gpus, gpu_memory, notice, layout, positions, keys, why_not);
    if (!engine) *given_up = why_not;
    return engine;
  };
}

#else

GpuEngineChooser gpu_engine_chooser(std::vector<int>, std::optional<std::uint64_t>, Notice) {
  return [](const RecordLayout&, PositionSource, std::uint64_t, std::string& why_not) -> std::unique_ptr<SortEngine> {
    why_not = "this rmgsort was built without CUDA";
    return nullptr;
  };
}

#endif

}  // namespace rmgsort
