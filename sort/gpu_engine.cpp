#include "sort/gpu_engine.hpp"

#include <tbb/task_arena.h>

#include <algorithm>

#include "host/numa_placement.hpp"
#include "io/host_buffer.hpp"
#include "sort/record_tag_sorter.hpp"

#if RMGSORT_WITH_CUDA
#include "gpu/devices.hpp"
#include "gpu/gpu_policy.hpp"
#include "gpu/in_core_sort.hpp"
#include "core/record_pair.hpp"
#endif

namespace rmgsort {

#if RMGSORT_WITH_CUDA
namespace {

class InCoreEngine final : public SortEngine {
 public:
  // Bare keys (without positions) are sorted as keys of their type; records the GPUs carry whole,
  // and bare keys with the positions of the sort's input, as pairs (core/record_pair.hpp); every
  // other layout by tags, which the GPUs sort as u64 keys. `plan` is the plan for what the GPUs
  // sort (a plan with values for pairs).
  InCoreEngine(const RecordLayout& layout, PositionSource positions, InCorePlan plan)
      : layout_(layout), positions_wanted_(positions == PositionSource::sort_input), plan_(std::move(plan)) {
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
  void place(std::byte* data, std::size_t bytes) const override { apply_numa_placement(numa_, data, bytes); }
  // The devices' buffers were planned for round_keys() when the engine was chosen. The tags are
  // page-locked once, placed like the keys.
  void allocate(std::uint64_t keys) override {
    sorter_ = std::make_unique<InCoreSorter>(plan_);
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
  SortedRound sort(std::byte* records, std::uint64_t count, SortOrder order) override {
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

  std::vector<std::uint64_t> device_bytes_allocated() const override {
    // The sorter allocates exactly the plan's need on each GPU (gpu/memory_plan.cuh: both use
    // gpu_layout, so they agree to the byte).
    std::vector<std::uint64_t> bytes;
    for (const GpuMemoryNeed& need : plan_.need) bytes.push_back(sorter_ ? need.total() : 0);
    return bytes;
  }

  // The sorter times in milliseconds (CUDA events); --stats has seconds everywhere.
  Json stats() const override {
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
    return {
        {"records_carried_as_pairs", pairs()},
        {"record_tags", tag_sorter_ ? tag_sorter_->stats() : Json(nullptr)},
        {"passes", last_.passes},
        {"buckets", std::uint64_t(last_.buckets)},
        {"total_seconds", seconds(last_.total_ms)},
        {"round_keys_planned", plan_.round_keys},
        {"host_memory_numa_placement", numa_.describe()},
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
  }

 private:
  [[nodiscard]] bool pairs() const { return plan_.value_bytes > 0; }
  void sorted_on_gpus(std::byte* keys, std::uint64_t count, SortOrder order) {
    last_ = sorter_->sort(keys, count, order);
    device_ms_.push_back(last_.total_ms);
  }

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
  InCoreStats last_;
  std::vector<double> device_ms_;
};

}  // namespace

GpuEngineChooser gpu_engine_chooser(std::vector<int> gpus, std::optional<std::uint64_t> gpu_memory) {
  return [gpus = std::move(gpus), gpu_memory](const RecordLayout& layout, PositionSource positions, std::uint64_t keys,
                                              std::string& why_not) -> std::unique_ptr<SortEngine> {
    if (gpus.empty() || keys == 0) {
      why_not = gpus.empty() ? "no GPU selected" : "no keys";
      return nullptr;
    }
    // Bare keys: the keys themselves. Records carried whole, and bare keys with positions: their
    // pairs. Everything else: the tags, u64 keys.
    const bool pairs =
        positions != PositionSource::appended && sorted_as_pairs(layout, positions == PositionSource::sort_input);
    const bool bare = positions == PositionSource::none && layout.is_bare_key();
    const KeyType sorted_type = bare ? layout.key_type : pairs ? pair_key_type(layout) : KeyType::u64;
    const std::size_t value_bytes = pairs ? kPairValueBytes : 0;
    const InCorePlan largest = plan_in_core(sorted_type, gpus, gpu_memory, value_bytes);
    return std::make_unique<InCoreEngine>(
        layout, positions,
        plan_in_core_for(sorted_type, gpus, std::min(keys, largest.round_keys), gpu_memory, value_bytes));
  };
}

#else

GpuEngineChooser gpu_engine_chooser(std::vector<int>, std::optional<std::uint64_t>) {
  return [](const RecordLayout&, PositionSource, std::uint64_t, std::string& why_not) -> std::unique_ptr<SortEngine> {
    why_not = "this rmgsort was built without CUDA";
    return nullptr;
  };
}

#endif

}  // namespace rmgsort
