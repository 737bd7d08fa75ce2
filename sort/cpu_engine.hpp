// The CPU as a sort engine: the parallel radix sort (host/radix_sort.hpp), in place (with a few
// buffers a thread that it allocates as it goes), for bare keys; the sort of records as pairs
// (host/pair_sort.hpp), in place, for a record of at most its key and 8 more bytes, and for bare
// keys whose input positions are wanted (core/record_pair.hpp); the record tag sort
// (sort/record_tag_sorter.hpp) with the radix sort of tags (host/tag_sort.hpp) for every other
// layout and positions. It takes any number of records at once; place and pin are nothing to it.
#pragma once

#include <optional>

#include "io/host_buffer.hpp"
#include "report/progress.hpp"
#include "sort/record_tag_sorter.hpp"
#include "sort/sort_engine.hpp"

namespace rmgsort {

class CpuEngine final : public SortEngine {
 public:
  explicit CpuEngine(const RecordLayout& layout, PositionSource positions = PositionSource::none);

  [[nodiscard]] std::string_view name() const override { return "cpu"; }
  [[nodiscard]] std::string devices() const override { return ""; }
  [[nodiscard]] const RecordLayout& layout() const override { return layout_; }
  [[nodiscard]] std::uint64_t round_keys() const override;
  [[nodiscard]] std::uint64_t host_bytes_beside(std::uint64_t keys) const override;
  [[nodiscard]] std::uint64_t output_bytes(std::uint64_t keys) const override;

  void place(std::byte*, std::size_t) const override {}
  void pin(std::byte*, std::size_t) override {}
  void allocate(std::uint64_t keys) override;
  SortedRound sort(std::byte* records, std::uint64_t count, SortOrder order) override;

  // From now on, adds the bytes of the keys each sort() has placed to PROGRESS as it goes, and
  // returns true: bare keys, whose radix sort tells what it has placed (host/radix_sort.hpp).
  // Records, sorted as pairs or by tags, tell nothing before their sort returns: false.
  bool report_to(Progress& progress) override;
  // Bare keys: their radix sort's finished prefix (host/radix_sort.hpp, SortedPrefixHook), true.
  // Records, sorted as pairs or by tags: false (their sort is final only when it returns).
  bool hand_prefixes_to(SortedPrefixSink sink) override;
  [[nodiscard]] bool hands_prefixes() const override { return !pairs_ && !tag_sorter_; }

  [[nodiscard]] std::vector<std::uint64_t> device_bytes_allocated() const override { return {}; }
  // Records sorted by tags: the tag sort's steps so far (benchmarks); nullptr otherwise.
  [[nodiscard]] const RecordTagSorter* tag_sorter() const { return tag_sorter_ ? &*tag_sorter_ : nullptr; }
  // Records: whether they were sorted as pairs, and the tag sort's steps ("record_tags"); null for
  // bare keys.
  [[nodiscard]] Json stats() const override {
    if (pairs_) return {{"records_carried_as_pairs", true}};
    return tag_sorter_ ? Json{{"record_tags", tag_sorter_->stats()}} : Json(nullptr);
  }

 private:
  RecordLayout layout_;
  bool pairs_ = false;                         // records sorted as pairs
  bool positions_wanted_ = false;              // pairs: their values are the input positions
  HostBuffer positions_;                       // ... written here, valid until the next sort()
  std::optional<RecordTagSorter> tag_sorter_;  // every other layout but bare keys without positions
  std::uint64_t scratch_keys_ = 0;
  HostBuffer scratch_;  // the buffer of the pairs' or of the tags' sort (bare keys need none)
  Progress* progress_ = nullptr;  // report_to()
  SortedPrefixSink prefix_sink_;  // hand_prefixes_to()
};

}  // namespace rmgsort
