// The in-core RMG pipeline for one round: copy in, partitioning passes driven by the
// PartitionPlanner, one all-to-all swap, bucket sorts overlapped with the copies back. Each phase
// is a member of Impl in a file of its own (in_core_state.hpp lists them); here is their order.
#include "gpu/in_core_sort.hpp"

#include "gpu/in_core_state.hpp"
#include "gpu/key_transform_kernels.cuh"
#include "core/record_pair.hpp"

namespace rmgsort {

template <class T>
InCoreStats InCoreSorter::Impl::sort_typed(std::byte* host, std::uint64_t count, SortOrder order) {
  InCoreStats stats = empty_stats();
  if (count == 0) return stats;
  const std::vector<std::uint64_t> chunks = equal_chunks(count, gpus.size());
  copy_in(host, chunks, sizeof(T));

  // Partitioning passes until no bucket spans two GPUs. The first covers every GPU's whole chunk
  // (the planner's initial bucket) and reads raw keys.
  PlannerConfig config;
  config.key_bits = int(8 * sizeof(T));
  PartitionPlanner planner(chunks, config);
  const KeyInput raw_input = encoding_is_identity<T>(order)  ? KeyInput::encoded
                             : order == SortOrder::ascending ? KeyInput::raw_ascending
                                                             : KeyInput::raw_descending;
  while (!planner.done())
    partition_pass<T>(planner, planner.passes_done() == 0 ? raw_input : KeyInput::encoded, order, chunks);
  wait_for_last_scatter();

  swap(planner, sizeof(T), stats);
  sort_buckets<T>(host, planner, order, stats);
  record_times(planner, stats);
  return stats;
}

template <class Bits>
InCoreStats InCoreSorter::Impl::sort_pairs(std::byte* host, std::uint64_t count, const RecordLayout& layout,
                                           SortOrder order, std::uint64_t* positions) {
  InCoreStats stats = empty_stats();
  if (count == 0) return stats;
  const std::vector<std::uint64_t> chunks = equal_chunks(count, gpus.size());
  copy_in_records<Bits>(host, chunks, layout, order, positions != nullptr);  // keys encoded in `order`

  PlannerConfig config;
  config.key_bits = int(8 * sizeof(Bits));
  PartitionPlanner planner(chunks, config);
  while (!planner.done()) partition_pass<Bits>(planner, KeyInput::encoded, SortOrder::ascending, chunks);
  wait_for_last_scatter();

  swap(planner, sizeof(Bits), stats);
  sort_pair_buckets<Bits>(host, positions, planner, layout, order, stats);
  record_times(planner, stats);
  return stats;
}

InCoreSorter::InCoreSorter(const InCorePlan& plan) {
  try {
    impl_ = std::make_unique<Impl>(plan);
  } catch (const Error& e) {
    throw Error(std::string("in-core sort setup: ") + e.what());
  }
}
InCoreSorter::~InCoreSorter() = default;
const InCorePlan& InCoreSorter::plan() const { return impl_->plan; }

InCoreStats InCoreSorter::sort(std::byte* keys, std::uint64_t count, SortOrder order) {
  if (count > impl_->plan.round_keys)
    throw Error("in-core sort: " + std::to_string(count) + " keys exceed the planned round of " +
                std::to_string(impl_->plan.round_keys));
  if (count == 0)
    return visit_key_type(impl_->plan.type, [&]<class T>(T) { return impl_->sort_typed<T>(keys, 0, order); });
  // Page-locked memory copies at full speed and asynchronously; lock pageable memory for the call.
  cudaPointerAttributes attributes{};
  RMGSORT_CUDA_TRY(cudaPointerGetAttributes(&attributes, keys));
  PinnedRegistration pinned;
  if (attributes.type != cudaMemoryTypeHost)
    pinned = PinnedRegistration(keys, count * key_width(impl_->plan.type));
  try {
    return visit_key_type(impl_->plan.type, [&]<class T>(T) { return impl_->sort_typed<T>(keys, count, order); });
  } catch (const Error& e) {
    throw Error("GPU " + std::to_string(impl_->where.device) + ", " + impl_->where.stage + ": " + e.what());
  }
}

InCoreStats InCoreSorter::sort_records(std::byte* records, std::uint64_t count, const RecordLayout& layout,
                                       SortOrder order, std::uint64_t* positions) {
  const InCorePlan& plan = impl_->plan;
  // (An empty round may come without positions even when they are wanted: nothing to tell.)
  RMGSORT_EXPECTS((count == 0 || sorted_as_pairs(layout, positions != nullptr)) &&
                      plan.value_bytes == kPairValueBytes && plan.type == pair_key_type(layout),
                  "sort_records: a plan for the layout's pairs");
  if (count > plan.round_keys)
    throw Error("in-core sort: " + std::to_string(count) + " records exceed the planned round of " +
                std::to_string(plan.round_keys));
  cudaPointerAttributes attributes{};
  if (count > 0) RMGSORT_CUDA_TRY(cudaPointerGetAttributes(&attributes, records));
  PinnedRegistration pinned;
  if (count > 0 && attributes.type != cudaMemoryTypeHost)
    pinned = PinnedRegistration(records, count * layout.record_size);
  try {
    if (plan.type == KeyType::u32) return impl_->sort_pairs<std::uint32_t>(records, count, layout, order, positions);
    return impl_->sort_pairs<std::uint64_t>(records, count, layout, order, positions);
  } catch (const Error& e) {
    throw Error("GPU " + std::to_string(impl_->where.device) + ", " + impl_->where.stage + ": " + e.what());
  }
}

PinnedRegistration::PinnedRegistration(void* data, std::size_t bytes, int device) : device_(device) {
  if (bytes == 0) return;
  if (device >= 0) RMGSORT_CUDA_TRY(cudaSetDevice(device));
  RMGSORT_CUDA_TRY(cudaHostRegister(data, bytes, cudaHostRegisterPortable));
  data_ = data;
}
PinnedRegistration::~PinnedRegistration() {
  if (!data_) return;
  // A destructor: nothing to report a failure to (a release that cannot run lasts until the process ends).
  if (device_ < 0 || cudaSetDevice(device_) == cudaSuccess) (void)cudaHostUnregister(data_);
}
PinnedRegistration::PinnedRegistration(PinnedRegistration&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), device_(other.device_) {}
PinnedRegistration& PinnedRegistration::operator=(PinnedRegistration&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(device_, other.device_);
  return *this;
}

}  // namespace rmgsort
