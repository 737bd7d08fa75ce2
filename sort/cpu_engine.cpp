#include "sort/cpu_engine.hpp"

#include <limits>

#include "host/radix_sort.hpp"

namespace rmgsort {

CpuEngine::CpuEngine(const RecordLayout& layout) : layout_(layout) {
  RMGSORT_EXPECTS(layout.is_bare_key(), "the CPU engine sorts bare keys");
}

std::uint64_t CpuEngine::round_keys() const { return std::numeric_limits<std::uint64_t>::max(); }

std::uint64_t CpuEngine::host_bytes_beside(std::uint64_t keys) const {
  return radix_sort_scratch_bytes(layout_.key_type, keys);
}

void CpuEngine::allocate(std::uint64_t keys) {
  scratch_ = HostBuffer(host_bytes_beside(keys));
  scratch_keys_ = keys;
}

void CpuEngine::sort(std::byte* keys, std::uint64_t count, SortOrder order) {
  RMGSORT_EXPECTS(count <= scratch_keys_, "the sort buffer holds the keys (allocate() first)");
  visit_key_type(layout_.key_type, [&]<class T>(T) {
    radix_sort(reinterpret_cast<T*>(keys), count, order, scratch_.as<T>());
  });
}

}  // namespace rmgsort
