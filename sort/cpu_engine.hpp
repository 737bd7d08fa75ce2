// The CPU as a sort engine: the parallel radix sort (host/radix_sort.hpp) with its sort buffer, as
// large as the keys. It takes any number of keys at once; place and pin are nothing to it.
#pragma once

#include <memory>

#include "io/host_buffer.hpp"
#include "sort/sort_engine.hpp"

namespace rmgsort {

class CpuEngine final : public SortEngine {
 public:
  // Bare keys only (layout.is_bare_key()).
  explicit CpuEngine(const RecordLayout& layout);

  [[nodiscard]] std::string_view name() const override { return "cpu"; }
  [[nodiscard]] std::string devices() const override { return ""; }
  [[nodiscard]] const RecordLayout& layout() const override { return layout_; }
  [[nodiscard]] std::uint64_t round_keys() const override;
  [[nodiscard]] std::uint64_t host_bytes_beside(std::uint64_t keys) const override;

  void place(std::byte*, std::size_t) const override {}
  void pin(std::byte*, std::size_t) override {}
  void allocate(std::uint64_t keys) override;
  void sort(std::byte* keys, std::uint64_t count, SortOrder order) override;

  [[nodiscard]] std::vector<std::uint64_t> device_bytes_allocated() const override { return {}; }
  [[nodiscard]] JsonObject stats() const override { return JsonObject(); }

 private:
  RecordLayout layout_;
  std::uint64_t scratch_keys_ = 0;
  HostBuffer scratch_;
};

}  // namespace rmgsort
